import json, subprocess, sys

agent = subprocess.Popen([sys.executable, "-m", "miniagent", "--mode", "rpc"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

def ask(text):
    """Send a prompt, print the answer as it streams in, return when the run ends."""
    agent.stdin.write(json.dumps({"type": "prompt", "message": text}) + "\n")
    agent.stdin.flush()
    for line in agent.stdout:  # events and responses, one JSON object per line
        event = json.loads(line)
        update = event.get("assistantMessageEvent", {})  # a piece of a streamed reply
        if update.get("type") == "text_delta":
            print(update["delta"], end="", flush=True)
        elif event["type"] == "agent_settled":
            print()
            return

ask("Which files are in this folder?")
agent.stdin.close()  # the end of input: miniagent finishes its work and exits
agent.wait()
