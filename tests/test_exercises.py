"""EXERCISES.md's promise: each step's pytest marker selects tests, the reference passes
them, a correct rewrite passes them, and a wrong one does not.

A learner empties one function, rewrites it, and runs `pytest -m ex_NAME` until it is
green. That only works if every marker is declared in setup.cfg and picks at least one
test, and if those tests pass on the code as shipped. One pytest collection in a
subprocess checks the selection of all nine at once (the suite itself runs the tests,
so a failing reference is a red suite).

A correct solution must not turn the rest of the suite red: a second, differently
written solution of each step (tests/exercise_solutions/ex_NAME.py) is spliced into a
copy of the checkout, where the steps' tests, the reading path (its line counts) and the
extension docs/extensions.md shows (the step 7 file) still pass.

And green must mean right. Each wrong solution below (tests/exercise_solutions/wrong/,
one file each, named after its step) is what a student plausibly writes; spliced in
alone, it fails its step's tests (the test that catches it in brackets) and passes some:

- ex_sse, SSEDecoder.feed:
  stale_skip_lf: the "last chunk ended in CR" flag is kept until an LF uses it, so a
    later LF is swallowed and the event lost [the vector b"data: a\\rdata: b\\n\\n",
    one byte at a time];
  crlf_split_is_two_line_ends: a CR|LF pair cut in two ends two lines, a spurious
    dispatch [test_cr_and_lf_split_across_chunks_is_one_line_end];
  cr_held_back: a line ending in CR waits for the next chunk and is glued to it
    [test_cr_lf_and_crlf_mixed_in_one_stream];
  lf_only: a lone CR never ends a line [the vector b"data: x\\r\\r"];
  decode_each_chunk: a character cut between chunks becomes two U+FFFD
    [test_multibyte_character_cut_anywhere_survives].
- ex_assembly, _ToolCalls._route:
  by_position_not_index: a fragment without an id continues the last call
    [test_parallel_calls_are_kept_apart_by_index_even_interleaved];
  reused_index_continues: no check for an index reused by a new call
    [test_ollama_reused_index_with_a_new_id_and_name_is_a_new_call];
  every_name_starts_a_call [test_fireworks_repeated_id_name_and_type_are_set_once];
  new_id_starts_a_call, even without a name [test_lm_studio_fresh_id_per_fragment].
- ex_truncate, truncate_tail:
  characters_not_bytes [test_tail_counts_utf8_bytes_and_the_newlines_between_lines];
  newlines_not_counted [the same, and test_tail_partial_last_line];
  trailing_newline_shows_nothing [test_tail_partial_last_line];
  one_line_too_many: > where >= belongs [test_tail_by_lines].
- ex_tool, ls's execute:
  case_sensitive_sort and dot_files_hidden
    [test_ls_sorted_with_dot_files_and_directory_marks];
  dangling_links_skipped [test_ls_lists_dangling_and_looping_symlinks];
  limit_notice_at_the_limit [test_ls_limit_empty_and_errors].
- ex_cut_point, find_cut_point:
  between_call_and_result: any message may be cut at
    [test_a_cut_inside_a_turn_is_a_split_turn_and_never_separates_a_call_from_its_result];
  earlier_cut_point: the cut point before the budget, not after [the same];
  huge_result_keeps_everything, pi's choice
    [test_a_huge_last_tool_result_keeps_its_call_with_it];
  split_decided_after_settings
    [test_settings_entries_before_the_cut_go_with_the_kept_part_and_do_not_split_it].
- ex_retry, backoff_delay and is_retryable:
  verdict_ignored: every failed reply is retried, a 400, a 501 and an overflow too;
    stop_reason_ignored: an aborted reply is retried
    [both: test_final_failures_overflows_and_other_outcomes_are_not];
  jitter_added on top of the delay; linear_backoff: 2, 4, 6 s
    [both: test_backoff_doubles_from_the_base_less_up_to_a_quarter].
- ex_gate, setup:
  rm_only_at_the_start: "make && rm -rf $HOME/x" runs [test_what_it_blocks];
  rf_spelled_one_way: "rm -Rf", "rm -fr" run [the same];
  project_itself_inside: "rm -rf ." runs [the same];
  fails_open: a command shlex cannot split runs
    [test_a_command_it_cannot_parse_is_blocked_not_waved_through].
- ex_todo, latest_list and list_in:
  empty_list_ignored: a cleared list brings the old one back [test_an_empty_list_clears_it];
  details_trusted: a planted list reaches the terminal
    [test_a_session_file_from_elsewhere_cannot_feed_it_a_malformed_list];
  first_list_wins: the plan as first written
    [test_todos_shows_the_list_as_it_was_where_a_tree_move_lands].
- ex_undo, Checkpoints.undo:
  oldest_first: /undo takes back the first prompt, not the last
    [test_undo_puts_back_the_last_prompt_then_the_one_before_and_spares_a_changed_file];
  never_marked: a second /undo takes back the same prompt again [the same];
  model_not_told: the model still believes its changes are there [the same].
"""

import ast
import configparser
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MARKERS = ["ex_sse", "ex_assembly", "ex_truncate", "ex_tool", "ex_cut_point", "ex_retry",
           "ex_gate", "ex_todo", "ex_undo"]
# The test files EXERCISES.md names, one per step (the markers live only there).
MARKED_FILES = ["tests/core/test_sse.py", "tests/providers/test_openai.py",
                "tests/tools/hardening/test_truncate.py", "tests/tools/test_search.py",
                "tests/compaction/test_compaction.py", "tests/harness/test_reply_retry.py",
                "tests/test_examples.py", "tests/extensions/test_todo.py",
                "tests/extensions/test_checkpoints.py"]

# Runs inside the subprocess: pytest collects the marked tests (runs none) with a small
# plugin that writes, for each ex_ marker, the tests it selected to the JSON file argv[1].
COLLECT_MARKED = """
import json, sys
import pytest

class Selection:
    def __init__(self):
        self.markers = {}

    def pytest_collection_modifyitems(self, items):
        for item in items:
            for mark in item.iter_markers():
                if mark.name.startswith("ex_"):
                    self.markers.setdefault(mark.name, []).append(item.nodeid)

plugin = Selection()
code = pytest.main(sys.argv[2:], plugins=[plugin])
with open(sys.argv[1], "w") as out:
    json.dump({"code": int(code), "markers": plugin.markers}, out)
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


def test_each_marker_selects_tests_in_the_file_the_step_names(tmp_path):
    result_file = tmp_path / "selection.json"
    selection = " or ".join(MARKERS)
    args = ["-q", "-p", "no:cacheprovider", "-n", "0",  # collected here, not in workers
            "--assert=plain",  # collecting needs no assert rewriting, which is slow
            "--collect-only", "--strict-markers", "-m", selection, *MARKED_FILES]
    run = subprocess.run([sys.executable, "-c", COLLECT_MARKED, str(result_file), *args],
                         cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True,
                         text=True, timeout=120)
    assert result_file.exists(), run.stdout + run.stderr
    result = json.loads(result_file.read_text())
    assert result["code"] == 0, run.stdout[-3000:] + run.stderr[-2000:]
    for marker, file in zip(MARKERS, MARKED_FILES):
        selected = result["markers"].get(marker, [])
        assert selected, f"pytest -m {marker} selects no test"
        assert {node.split("::")[0] for node in selected} == {file}, marker


# A second, differently written correct solution of each step (tests/exercise_solutions/),
# spliced into a copy of the checkout: the step's tests, the reading path and the shown
# extension must stay green, so a student's correct body of another length breaks nothing.
SOLUTIONS = os.path.join(ROOT, "tests", "exercise_solutions")
# The check that docs/extensions.md's copy of the step 7 file still matches it.
SHOWN_GATE = "tests/test_library.py::test_the_shown_gate_has_the_shipped_functions_and_works"
NOT_COPIED = shutil.ignore_patterns(".git", ".venv*", "__pycache__", "*.egg-info", ".pytest_cache")


def solution_parts(path):
    """(FILE, CLASS, {function name: its source}) of one solution file."""
    with open(path) as f:
        source = f.read()
    tree = ast.parse(source)
    names = {node.targets[0].id: ast.literal_eval(node.value) for node in tree.body
             if isinstance(node, ast.Assign)}
    functions = {node.name: ast.get_source_segment(source, node) for node in tree.body
                 if isinstance(node, ast.FunctionDef)}
    return names["FILE"], names["CLASS"], functions


def splice(path, class_name, functions):
    """Replace each of `functions` (top level, or in class `class_name`) in the file."""
    with open(path) as f:
        lines = f.read().split("\n")
    for name, source in functions.items():
        body = ast.parse("\n".join(lines)).body
        if class_name:
            body = next(node for node in body if getattr(node, "name", None) == class_name).body
        target = next(node for node in body
                      if isinstance(node, ast.FunctionDef) and node.name == name)
        indented = textwrap.indent(source, " " * target.col_offset).split("\n")
        lines[target.lineno - 1:target.end_lineno] = indented
    with open(path, "w") as f:
        f.write("\n".join(lines))


def test_a_second_correct_solution_of_every_step_keeps_its_tests_and_the_reading_path_green(
        tmp_path):
    # Not the whole suite, which would double its time: the rest only runs these
    # functions through the program, and the steps' tests hold them to the reference.
    copy = tmp_path / "clone"
    shutil.copytree(ROOT, copy, ignore=NOT_COPIED)
    for marker in MARKERS:
        file, class_name, functions = solution_parts(os.path.join(SOLUTIONS, marker + ".py"))
        assert functions, marker
        splice(copy / file, class_name, functions)
    env = dict(os.environ, PYTHONPATH=str(copy))
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0"]
    where = subprocess.run([sys.executable, "-c", "import miniagent; print(miniagent.__file__)"],
                           cwd=copy, env=env, capture_output=True, text=True, timeout=60)
    assert where.stdout.startswith(str(copy))  # the copy's package is the one tested
    # The two runs are independent: side by side, they take the time of the longer one.
    runs = [subprocess.Popen(pytest + args, cwd=copy, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True)
            for args in (["--strict-markers", "-m", " or ".join(MARKERS), *MARKED_FILES],
                         ["tests/test_reading_path.py", SHOWN_GATE])]
    for run in runs:
        output, _ = run.communicate(timeout=120)
        assert run.returncode == 0, output[-5000:]


# Plausible wrong solutions (tests/exercise_solutions/wrong/, named after their step),
# each spliced into one copy of the checkout in turn: the step's own tests must fail on
# it, and pass on some of it (a body that fails everything proves nothing).
WRONG = os.path.join(SOLUTIONS, "wrong")


def step_of(mutant):
    """The marker of the step a wrong solution's file name begins with."""
    return next(marker for marker in MARKERS if mutant.startswith(marker + "_"))


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    copy = tmp_path_factory.mktemp("wrong") / "clone"
    shutil.copytree(ROOT, copy, ignore=NOT_COPIED)
    return copy


@pytest.mark.parametrize("mutant", sorted(name for name in os.listdir(WRONG)
                                          if name.endswith(".py")))
def test_each_plausible_wrong_solution_fails_its_steps_tests(clone, mutant):
    marker = step_of(mutant)
    file, class_name, functions = solution_parts(os.path.join(WRONG, mutant))
    target = clone / file
    shipped = target.read_text()
    splice(target, class_name, functions)
    try:
        run = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider",
                              "-n", "0", "--assert=plain", "-m", marker,
                              MARKED_FILES[MARKERS.index(marker)]],
                             # a wrong solution fails a screen test by its deadline:
                             # 5 s is ample on a quiet screen, and a minute wasted
                             cwd=clone, env=dict(os.environ, PYTHONPATH=str(clone),
                                                 MINIAGENT_TEST_DEADLINE="5"),
                             capture_output=True, text=True, timeout=120)
    finally:
        target.write_text(shipped)
    summary = run.stdout.strip().splitlines()[-1]
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-2000:]  # 1: tests failed
    assert " failed" in summary and " passed" in summary, summary
