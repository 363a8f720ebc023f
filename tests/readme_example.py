"""Ask miniagent to fix a failing test, and print each tool call as it happens."""
import pathlib
import tempfile

from miniagent import Agent, Resolved, create_tools, parse_script, resolve, scripted_model

project = pathlib.Path(tempfile.mkdtemp())
(project / "calc.py").write_text("def add(a, b):\n    return a - b\n")
(project / "test_calc.py").write_text("from calc import add\nassert add(2, 3) == 5\n")

def turn(name, **arguments):  # one reply of the scripted model: a tool call
    return {"content": [{"type": "toolCall", "name": name, "arguments": arguments}]}

fix = {"oldText": "a - b", "newText": "a + b"}
script = parse_script([turn("bash", command="python3 test_calc.py"),
                       turn("edit", path="calc.py", edits=[fix]),
                       turn("bash", command="python3 test_calc.py"),
                       {"content": [{"type": "text", "text": "Fixed: add() subtracted."}]}])
chosen = Resolved(scripted_model(script))  # offline: the model replays the script above
# chosen = resolve()  # a real model instead: the first API key found (as the CLI does)
agent = Agent(model=chosen.model, api_key=chosen.api_key, tools=create_tools(), cwd=str(project))

def show(event):  # every event of the run comes here; print the tool calls
    if event["type"] == "tool_execution_start":
        print("tool:", event["toolName"], event["args"])

agent.subscribe(show)
agent.prompt("python3 test_calc.py fails. Find out why and fix it.")  # returns when done
print(agent.messages[-1]["content"][0]["text"])
