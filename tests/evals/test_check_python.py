"""The checks' $PYTHON (evals/check_python.py): what it runs, and what it refuses.
How it keeps a module of the copy from standing in for a check's imports is tested
through a whole trial in test_eval.py."""

import subprocess
import sys

from miniagent.evals.trial import CHECK_PYTHON


def run_check_python(*args, cwd):
    return subprocess.run([sys.executable, "-I", CHECK_PYTHON, *args], cwd=cwd,
                          capture_output=True, text=True, timeout=60)


def test_a_script_gets_its_arguments_and_finds_the_modules_beside_it(tmp_path):
    (tmp_path / "helper.py").write_text("WORD = 'found'\n")
    (tmp_path / "check.py").write_text("import sys, helper\nprint(helper.WORD, sys.argv[1:])\n")
    done = run_check_python("check.py", "a", "b", cwd=tmp_path)
    assert done.stdout == "found ['a', 'b']\n"


def test_an_option_it_does_not_run_is_refused_in_one_line(tmp_path):
    done = run_check_python("-u", "check.py", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr == "miniagent eval: a check's $PYTHON runs -m MODULE, -c CODE or a " \
                          "script (got -u check.py)\n"
