#!/usr/bin/env python3
"""A scripted OpenAI-compatible chat server on loopback, for live end-to-end runs without a model.

It answers POST /v1/chat/completions from a cassette (one JSON object per line, as written by
`cudamaster optimize --record` or shipped in data/demo/): each request is matched to the next
unused recorded answer of the same agent (the system prompt's "You are the Planner/Coder/Debug
agent/Compiler"), so `cudamaster optimize --llm openai-compatible:http://127.0.0.1:PORT/v1:MODEL`
makes real HTTP calls and gets the recorded answers. Standard library only; binds 127.0.0.1.

  scripts/script_llm_server.py --cassette data/demo/spmv_csr_fp32.jsonl --port-file /tmp/port &
  cudamaster optimize --task spmv_csr --llm openai-compatible:http://127.0.0.1:$(cat /tmp/port)/v1:demo

--log FILE appends one JSON line per request (path, agent, answered seq). A request for an agent
whose answers are used up gets HTTP 503 with an OpenAI-style error body.
"""
import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cassette_lines import agent_of, cassette_entries


def load(path):
    queues = {}
    for _, entry in cassette_entries(path):
        agent = agent_of(entry.get("request", {}).get("messages"))
        queues.setdefault(agent, []).append(entry)
    return queues


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cassette", required=True)
    ap.add_argument("--port", type=int, default=0, help="0 = a free port")
    ap.add_argument("--port-file", help="write the bound port here once listening")
    ap.add_argument("--log", help="append one JSON line per request")
    args = ap.parse_args()
    queues = load(args.cassette)
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_):
            pass

        def reply(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0") or 0))
            if not self.path.endswith("/chat/completions"):
                return self.reply(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            try:
                req = json.loads(raw)
            except json.JSONDecodeError:
                return self.reply(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
            agent = agent_of(req.get("messages"))
            with lock:
                q = queues.get(agent, [])
                entry = q.pop(0) if q else None
            if args.log:
                with lock, open(args.log, "a", encoding="utf-8") as f:
                    f.write(json.dumps({"t": time.time(), "path": self.path, "agent": agent, "model": req.get("model"),
                                        "seq": entry.get("seq") if entry else None}) + "\n")
            if entry is None:
                return self.reply(503, {"error": {"message": f"script has no more answers for the {agent}", "type": "server_error"}})
            resp = entry.get("response", {})
            usage = resp.get("usage", {})
            self.reply(200, {
                "id": f"script-{entry.get('seq')}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": req.get("model", "script"),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": resp.get("text", "")},
                             "finish_reason": resp.get("finish_reason", "stop")}],
                "usage": {"prompt_tokens": usage.get("input_tokens", 0), "completion_tokens": usage.get("output_tokens", 0),
                          "total_tokens": usage.get("input_tokens", 0) + usage.get("output_tokens", 0)},
            })

    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(str(server.server_address[1]))
        import os
        os.replace(args.port_file + ".tmp", args.port_file)
    print(f"script LLM server on http://127.0.0.1:{server.server_address[1]}/v1 "
          f"({', '.join(f'{k}: {len(v)}' for k, v in sorted(queues.items()))})", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
