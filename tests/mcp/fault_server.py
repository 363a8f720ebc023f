"""A scripted MCP server over stdio, for the tests: well-behaved, or broken on purpose.

    python fault_server.py MODE

    normal           a small, correct server: tools in two pages, resources, templates
    exit             writes ~100 KB to stderr, then "fatal: config missing", exits 3
    hang-initialize  reads everything, answers nothing
    malformed        answers initialize with a line that is not JSON
    huge-line        answers initialize with a 50 MB line
    old-version      answers initialize with protocol version 2024-11-05
    noisy            before its answer to initialize: messages a client must ignore
    stubborn         normal, but ignores SIGTERM and the end of its stdin
    wrapper [MODE]   like npx: starts MODE (normal) as its own child and waits for it
    many             normal, with 1,000 more tools (tool0 ... tool999)
    odd-names        normal, with one more tool whose name holds a C1 control (CSI),
                     DEL and a bidi override
    daemon           normal, after forking a daemon (a session of its own, its parent
                     gone) that sleeps for five minutes; its pid goes to the pid file too

The normal server's tools: echo, add, image, fail (isError), structured
(structuredContent), embedded (an embedded resource), changed (adds a tool "added",
sends tools/list_changed, then answers), progress (reports progress `steps` times,
every `every` s (0.2), then answers; steps 0 = forever), sleep (never answers),
cancelled (what notifications/cancelled it got), ask (sends the client the request
`method`, answers with the client's answer), crash (exits with status 1 mid-call).

Each process appends its pid to the file named by $FAULT_PID_FILE, so a test can check
none is left after close. Standard library only.
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time

write_lock = threading.Lock()
cancelled = []  # the params of every notifications/cancelled received
waiting_on_client = {}  # our request id -> the id of the tools/call waiting for it

TOOLS = [{"name": name, "description": f"the {name} tool",
          "inputSchema": {"type": "object", "properties": {}}}
         for name in ("echo", "add", "image", "fail", "structured", "embedded", "changed",
                      "progress", "sleep", "cancelled", "ask", "crash")]
PAGE_SIZE = 6
RESOURCES = [
    {"uri": "test://text", "name": "text", "mimeType": "text/plain"},
    {"uri": "test://blob", "name": "blob", "mimeType": "application/octet-stream"},
]
TEMPLATES = [{"uriTemplate": "test://items/{id}", "name": "item"}]
CONTENTS = {
    "test://text": {"uri": "test://text", "mimeType": "text/plain", "text": "hello resource"},
    "test://blob": {"uri": "test://blob", "mimeType": "application/octet-stream",
                    "blob": "AAEC"},
}


def send(message):
    with write_lock:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def answer(request_id, result):
    send({"jsonrpc": "2.0", "id": request_id, "result": result})


def error(request_id, code, message):
    send({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}})


def text(value):
    return {"content": [{"type": "text", "text": value}]}


def initialize_result(version="2025-11-25"):
    return {"protocolVersion": version, "capabilities": {"tools": {"listChanged": True},
                                                         "resources": {}},
            "serverInfo": {"name": "fault", "version": "1.0"}, "instructions": "be kind"}


def call_tool(request_id, params):
    name, args = params.get("name"), params.get("arguments") or {}
    token = (params.get("_meta") or {}).get("progressToken")
    if name == "echo":
        return answer(request_id, text(args.get("text", "")))
    if name == "add":
        return answer(request_id, text(str(args.get("a", 0) + args.get("b", 0))))
    if name == "image":
        return answer(request_id, {"content": [{"type": "image", "data": "iVBORw0KGgo=",
                                                "mimeType": "image/png"}]})
    if name == "fail":
        return answer(request_id, {"content": [{"type": "text", "text": "it failed"}],
                                   "isError": True})
    if name == "structured":
        return answer(request_id, {"content": [{"type": "text", "text": '{"n": 1}'}],
                                   "structuredContent": {"n": 1}})
    if name == "embedded":
        return answer(request_id, {"content": [{"type": "resource",
                                                "resource": CONTENTS["test://text"]}]})
    if name == "changed":  # a new tool, "added", then the news
        if not any(tool["name"] == "added" for tool in TOOLS):
            TOOLS.append({"name": "added", "description": "the added tool",
                          "inputSchema": {"type": "object", "properties": {}}})
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        return answer(request_id, text("changed"))
    if name == "progress":
        threading.Thread(target=report_progress, daemon=True, args=(
            request_id, token, args.get("steps", 5), args.get("every", 0.2))).start()
        return None
    if name == "sleep":
        return None  # never answered
    if name == "cancelled":
        return answer(request_id, text(json.dumps(cancelled)))
    if name == "ask":
        waiting_on_client["ask-1"] = request_id
        return send({"jsonrpc": "2.0", "id": "ask-1", "method": args["method"], "params": {}})
    if name == "crash":
        sys.stderr.write("fault server: crashing mid-call\n")
        sys.stderr.flush()
        os._exit(1)
    return error(request_id, -32602, f"unknown tool {name}")


def report_progress(request_id, token, steps, every):
    step = 0
    while steps == 0 or step < steps:
        step += 1
        send({"jsonrpc": "2.0", "method": "notifications/progress",
              "params": {"progressToken": token, "progress": step}})
        time.sleep(every)
    answer(request_id, text(f"done after {step} steps"))


def tools_page(params):
    start = int(params.get("cursor") or 0)
    page = {"tools": TOOLS[start:start + PAGE_SIZE]}
    if start + PAGE_SIZE < len(TOOLS):
        page["nextCursor"] = str(start + PAGE_SIZE)
    return page


def handle(message, mode):
    method, request_id = message.get("method"), message.get("id")
    params = message.get("params") or {}
    if method is None:  # the client's answer to our "ask"
        waiting = waiting_on_client.pop(request_id, None)
        if waiting is not None:
            answer(waiting, text(json.dumps(message)))
    elif method == "initialize":
        initialize(request_id, mode)
    elif method == "notifications/cancelled":
        cancelled.append(params)
    elif method == "tools/list":
        answer(request_id, tools_page(params))
    elif method == "tools/call":
        call_tool(request_id, params)
    elif method == "resources/list":
        answer(request_id, {"resources": RESOURCES})
    elif method == "resources/templates/list":
        answer(request_id, {"resourceTemplates": TEMPLATES})
    elif method == "resources/read":
        found = CONTENTS.get(params.get("uri"))
        if found is None:
            error(request_id, -32002, "resource not found")
        else:
            answer(request_id, {"contents": [found]})
    elif method == "ping":
        answer(request_id, {})
    elif request_id is not None:
        error(request_id, -32601, f"method not found: {method}")


def initialize(request_id, mode):
    if mode == "hang-initialize":
        return
    if mode == "malformed":
        sys.stdout.write("Starting fault server v1.0 ... ready!\n")
        return sys.stdout.flush()
    if mode == "huge-line":
        chunk = "x" * (1024 * 1024)
        for _ in range(50):
            sys.stdout.write(chunk)
        sys.stdout.write("\n")
        return sys.stdout.flush()
    if mode == "old-version":
        return answer(request_id, initialize_result("2024-11-05"))
    if mode == "noisy":
        send({"jsonrpc": "1.0", "id": request_id, "result": {}})  # not JSON-RPC 2.0
        send({"jsonrpc": "2.0", "id": 999, "result": {}})  # answers nothing we asked
        sys.stdout.write("\n")  # a blank line
        sys.stdout.write(json.dumps([{"jsonrpc": "2.0", "method": "notifications/message",
                                      "params": {"level": "info", "data": "hi"}}, 42]) + "\n")
    answer(request_id, initialize_result())


def serve(mode):
    global PAGE_SIZE
    if mode == "many":
        TOOLS.extend({"name": f"tool{n}", "description": f"tool number {n}",
                      "inputSchema": {"type": "object", "properties": {}}} for n in range(1000))
        PAGE_SIZE = 500
    if mode == "odd-names":
        TOOLS.append({"name": "evil\u009b2J\u007f\u202egnp.exe", "description": "odd",
                      "inputSchema": {"type": "object", "properties": {}}})
    if mode == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for line in sys.stdin:
        if line.strip():
            handle(json.loads(line), mode)
    if mode == "stubborn":
        while True:
            time.sleep(1)  # deaf to the end of its input: only SIGKILL ends it


def start_daemon(pid_file):
    """Fork twice, as daemons do: the grandchild leaves our process group and session,
    and its parent exits, so no process of ours leads to it."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            with open(pid_file, "a") as f:
                f.write(f"{os.getpid()}\n")
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):  # off our pipes, or the client would wait for them
                os.dup2(null, fd)
            time.sleep(300)
        os._exit(0)
    os.wait()


def main():
    mode = sys.argv[1]
    pid_file = os.environ.get("FAULT_PID_FILE")
    if pid_file:
        with open(pid_file, "a") as f:
            f.write(f"{os.getpid()}\n")
    if mode == "exit":
        sys.stderr.write("noise line\n" * 10000 + "fatal: config missing\n")
        sys.exit(3)
    if mode == "daemon":
        start_daemon(pid_file)
        mode = "normal"
    if mode == "wrapper":
        # Like npx: the real server is our child, on our stdin and stdout.
        child_mode = sys.argv[2] if len(sys.argv) > 2 else "normal"
        sys.exit(subprocess.call([sys.executable, __file__, child_mode]))
    serve(mode)


if __name__ == "__main__":
    main()
