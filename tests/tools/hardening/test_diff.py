"""diff: the line-numbered diff edit puts in its result's details."""

from miniagent.tools.hardening.diff import generate_diff


def test_diff_with_context_and_markers():
    old = "\n".join(f"l{i}" for i in range(1, 13))
    diff, first = generate_diff(old, old.replace("l7", "X"))
    assert diff == ("    ...\n  3 l3\n  4 l4\n  5 l5\n  6 l6\n- 7 l7\n+ 7 X\n"
                    "  8 l8\n  9 l9\n 10 l10\n 11 l11\n    ...")
    assert first == 7


def test_diff_matches_a_real_pi_run():
    # shared/fixtures/pi-run/pi-0.73.1/print.session.jsonl: pi's edit of src/app.py.
    after = ('def greet(name):\n    return "Hello, " + name + "!"\n\n\n'
             'if __name__ == "__main__":\n    print(greet("world"))\n')
    before = after.replace(' + "!"', "")
    assert generate_diff(before, after) == (
        ' 1 def greet(name):\n-2     return "Hello, " + name\n'
        '+2     return "Hello, " + name + "!"\n 3 \n 4 \n'
        ' 5 if __name__ == "__main__":\n 6     print(greet("world"))', 2)


def test_diff_shortens_long_runs_between_changes():
    old = "\n".join(f"l{i}" for i in range(1, 31))
    diff, first = generate_diff(old, old.replace("l2\n", "A\n").replace("l28", "B"))
    lines = diff.split("\n")
    assert first == 2
    assert lines.count("    ...") == 1  # between the two changes
    assert "  6 l6" in lines and "  7 l7" not in lines and " 24 l24" in lines
