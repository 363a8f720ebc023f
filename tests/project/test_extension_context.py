"""api.ctx (extension_context.py): print mode's LineUI draws what the REPL's live area
shows, as lines on stderr."""

from miniagent.project.extension_context import LineUI


def test_print_mode_prints_a_widget_as_one_block_each_time_it_changes():
    said = []
    ui = LineUI(said.append)
    ui.set_widget("todo", ["1 of 2 done", "[x] a\n  b"])
    ui.set_widget("todo", ["1 of 2 done", "[x] a b"])  # the same lines: nothing new
    ui.set_widget("todo", None)  # clearing prints nothing
    ui.set_widget("todo", ["1 of 2 done", "[x] a b"])  # shown again after a clear
    assert said == ["miniagent: todo:", "  1 of 2 done", "  [x] a b"] * 2
