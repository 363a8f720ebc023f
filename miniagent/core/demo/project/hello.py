"""A tiny program with a bug, for the miniagent demo."""


def greet(name):
    return "Hello, " + nme + "!"


if __name__ == "__main__":
    print(greet("world"))
