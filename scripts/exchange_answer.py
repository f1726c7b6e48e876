#!/usr/bin/env python3
"""Answers `cudamaster optimize --llm exchange:DIR` requests: from a cassette, or one by hand.

The exchange provider (docs/agents.md, "The exchange provider") writes DIR/<name>.request.json
for every LLM call and reads DIR/<name>.reply.json. This script writes those replies.

From a cassette (as `--record` writes it, or data/demo/*.jsonl): every request in DIR without a
reply is answered as `--llm replay:FILE --replay-match task` would answer it. A conversation is
one job (run, task, precision); its requests, in journal-step order, each get the first recorded
exchange not given to an earlier one whose first user line (the prompts' "# Task: NAME
(precision, ...)" heading) and agent (the system prompt's "You are the ...") are the request's.
So a run can be carried to its end through stops and resumes without a person:

  while ! cudamaster optimize --resume 1 ...; do   # exit 4: jobs wait for replies
    scripts/exchange_answer.py --cassette data/demo/spmv_csr_fp32.jsonl DIR; done

--follow keeps answering until interrupted (with `optimize --exchange-wait SECONDS`, for a live run).

By hand: --request DIR/<name>.request.json --text answer.md writes that request's reply with the
text of answer.md (the request file's "request" holds the system and user messages to answer).

Replies are written to a temporary name and renamed, so a reader never sees half a file. Standard
library only.
"""
import argparse
import json
import os
import sys
import time

from cassette_lines import agent_of, cassette_entries


def heading_of(messages):
    for m in messages or []:
        if m.get("role") == "user":
            return (m.get("content") or "").split("\n", 1)[0]
    return ""


def load_cassette(path):
    by_heading = {}
    for n, entry in cassette_entries(path, "exchange_answer: "):
        messages = entry.get("request", {}).get("messages")
        by_heading.setdefault(heading_of(messages), []).append((n, agent_of(messages), entry))
    return by_heading


def write_reply(path, reply):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(reply, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def read_request(path):
    with open(path, encoding="utf-8") as f:
        req = json.load(f)
    if not isinstance(req, dict) or "id" not in req or "reply_file" not in req:
        raise ValueError(f"{path}: not an exchange request (no 'id' or 'reply_file')")
    return req


def conversation(req):
    c = req.get("context", {})
    return (c.get("run", ""), c.get("task", ""), c.get("precision", ""))


def step_of(req):
    try:
        return int(req.get("context", {}).get("step", "0"))
    except ValueError:
        return 0


def answer_pending(folder, cassette, quiet):
    """One pass: every request without a reply gets one. Returns the number written."""
    requests = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".request.json"):
            path = os.path.join(folder, name)
            try:
                requests.append((path, read_request(path)))
            except (OSError, ValueError) as e:
                sys.exit(f"exchange_answer: {e}")
    groups = {}
    for path, req in requests:
        groups.setdefault(conversation(req), []).append((step_of(req), path, req))
    written = 0
    for key, items in groups.items():
        items.sort(key=lambda t: t[0])
        given = set()  # the cassette lines earlier requests of this conversation got
        for _, path, req in items:
            messages = req.get("request", {}).get("messages")
            heading, agent = heading_of(messages), agent_of(messages)
            pick = next((r for r in cassette.get(heading, []) if r[0] not in given and r[1] == agent), None)
            if pick is None:
                sys.exit(f"exchange_answer: {path}: the cassette has no unused answer of the {agent} for '{heading}'")
            line, _, entry = pick
            given.add(line)
            reply_path = os.path.join(folder, os.path.basename(req["reply_file"]))
            if os.path.exists(reply_path):
                continue
            if "response" not in entry:
                sys.exit(f"exchange_answer: {path}: cassette line {line} recorded an error, not an answer")
            resp = entry["response"]
            usage = resp.get("usage", {}) or {}
            reply = {"id": req["id"], "text": resp.get("text", ""), "finish_reason": resp.get("finish_reason", "stop"),
                     "model": entry.get("model", ""),
                     "usage": {"input_tokens": usage.get("input_tokens", 0) or 0,
                               "output_tokens": usage.get("output_tokens", 0) or 0,
                               "cached_input_tokens": usage.get("cached_input_tokens", 0) or 0}}
            if resp.get("cost_usd") is not None:
                reply["cost_usd"] = resp["cost_usd"]
            write_reply(reply_path, reply)
            written += 1
            if not quiet:
                print(f"answered {os.path.basename(path)} with cassette line {line}", flush=True)
    return written


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", nargs="?", help="the exchange folder (cassette mode)")
    ap.add_argument("--cassette", help="answer every pending request from this cassette")
    ap.add_argument("--follow", action="store_true", help="keep answering new requests until interrupted")
    ap.add_argument("--request", help="by hand: the request file to answer")
    ap.add_argument("--text", help="by hand: a file with the answer's text ('-': stdin)")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()
    if args.request:
        if not args.text:
            ap.error("--request needs --text FILE")
        try:
            req = read_request(args.request)
        except (OSError, ValueError, json.JSONDecodeError) as e:
            sys.exit(f"exchange_answer: {e}")
        text = sys.stdin.read() if args.text == "-" else open(args.text, encoding="utf-8").read()
        reply_path = os.path.join(os.path.dirname(args.request), os.path.basename(req["reply_file"]))
        write_reply(reply_path, {"id": req["id"], "text": text})
        if not args.quiet:
            print(f"wrote {reply_path}")
        return
    if not args.folder or not args.cassette:
        ap.error("give FOLDER and --cassette FILE, or --request FILE --text FILE")
    cassette = load_cassette(args.cassette)
    if not args.follow:
        n = answer_pending(args.folder, cassette, args.quiet)
        if not args.quiet:
            print(f"{n} repl{'y' if n == 1 else 'ies'} written")
        return
    try:
        while True:
            if os.path.isdir(args.folder):
                answer_pending(args.folder, cassette, args.quiet)
            time.sleep(0.1)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
