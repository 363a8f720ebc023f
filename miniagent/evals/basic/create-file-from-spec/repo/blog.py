"""The addresses of a blog's posts, made from their titles."""

from slugify import slugify

POSTS = ["Hello, World!", "Ten tips for faster tests", "What's new in 3.10?"]


def post_url(title):
    """Example: post_url("Hello, World!") -> "/posts/hello-world/"."""
    return f"/posts/{slugify(title)}/"


if __name__ == "__main__":
    for title in POSTS:
        print(post_url(title))
