"""The hidden check of create-file-from-spec: slugify.py follows the prompt's rules."""

import os
import unittest

import slugify as module
from slugify import slugify


class SlugifyTest(unittest.TestCase):
    def test_the_module_is_the_projects_own(self):
        # a `slugify` installed from PyPI (python-slugify) must not pass for the agent's file
        self.assertEqual(os.path.realpath(os.path.dirname(module.__file__)),
                         os.path.realpath(os.getcwd()))

    def test_the_prompt_examples(self):
        self.assertEqual(slugify("Hello, World!"), "hello-world")
        self.assertEqual(slugify("Python 3.10 is out", separator="_"), "python_3_10_is_out")

    def test_a_run_of_other_characters_is_one_separator(self):
        self.assertEqual(slugify("a  --  b...c"), "a-b-c")
        self.assertEqual(slugify("C++ & Rust: 2 ways"), "c-rust-2-ways")

    def test_no_separator_at_either_end(self):
        self.assertEqual(slugify("  ...Ten tips!!  "), "ten-tips")

    def test_nothing_left(self):
        self.assertEqual(slugify(""), "")
        self.assertEqual(slugify("?!  ..."), "")

    def test_a_longer_separator(self):
        self.assertEqual(slugify("Big News", separator="--"), "big--news")

    def test_blog_urls(self):
        from blog import post_url
        self.assertEqual(post_url("Ten tips for faster tests"),
                         "/posts/ten-tips-for-faster-tests/")


if __name__ == "__main__":
    unittest.main()
