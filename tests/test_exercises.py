"""EXERCISES.md's promise: each step's pytest marker selects tests, and the reference passes them.

A learner empties one function, rewrites it, and runs `pytest -m ex_NAME` until it is
green. That only works if every marker is declared in setup.cfg and picks at least one
test, and if those tests pass on the code as shipped. One pytest run in a subprocess
checks all seven at once: it runs the marked tests and records, per marker, which tests
it selected and how each ended.
"""

import configparser
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKERS = ["ex_sse", "ex_assembly", "ex_truncate", "ex_tool", "ex_cut_point", "ex_retry",
           "ex_gate"]
# The test files EXERCISES.md names, one per step (the markers live only there).
MARKED_FILES = ["tests/http/test_sse.py", "tests/providers/test_openai.py",
                "tests/tools/hardening/test_truncate.py", "tests/tools/test_search.py",
                "tests/compaction/test_compaction.py", "tests/http/test_retry.py",
                "tests/test_examples.py"]

# Runs inside the subprocess: pytest with a small plugin that writes, for each ex_
# marker, the outcome of every test it selected to the JSON file named in argv[1].
RUN_MARKED = """
import json, sys
import pytest

class Outcomes:
    def __init__(self):
        self.markers, self.outcomes = {}, {}

    def pytest_collection_modifyitems(self, items):
        for item in items:
            for mark in item.iter_markers():
                if mark.name.startswith("ex_"):
                    self.markers.setdefault(mark.name, []).append(item.nodeid)

    def pytest_runtest_logreport(self, report):
        if report.failed or report.when == "call":
            self.outcomes.setdefault(report.nodeid, report.outcome)

plugin = Outcomes()
code = pytest.main(sys.argv[2:], plugins=[plugin])
with open(sys.argv[1], "w") as out:
    json.dump({"code": int(code), "markers": plugin.markers, "outcomes": plugin.outcomes}, out)
"""


def test_every_marker_is_declared_with_a_description():
    config = configparser.ConfigParser()
    config.read(os.path.join(ROOT, "setup.cfg"))
    declared = {}
    for line in config["tool:pytest"]["markers"].strip().splitlines():
        name, _, description = line.partition(":")
        declared[name.strip()] = description.strip()
    assert sorted(declared) == sorted(MARKERS)
    assert all(description.startswith("EXERCISES.md step") for description in declared.values())


def test_each_marker_selects_tests_and_the_reference_passes_them(tmp_path):
    result_file = tmp_path / "outcomes.json"
    selection = " or ".join(MARKERS)
    args = ["-q", "-p", "no:cacheprovider", "--strict-markers", "-m", selection, *MARKED_FILES]
    run = subprocess.run([sys.executable, "-c", RUN_MARKED, str(result_file), *args], cwd=ROOT,
                         env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True, text=True,
                         timeout=120)
    assert result_file.exists(), run.stdout + run.stderr
    result = json.loads(result_file.read_text())
    for marker in MARKERS:
        assert result["markers"].get(marker), f"pytest -m {marker} selects no test"
    failed = [node for node, outcome in result["outcomes"].items() if outcome != "passed"]
    assert failed == [] and result["code"] == 0, run.stdout[-3000:]
    selected = {node for nodes in result["markers"].values() for node in nodes}
    assert selected == set(result["outcomes"])  # every selected test ran (none skipped)
