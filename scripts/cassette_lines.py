"""What the two cassette readers share (script_llm_server.py, exchange_answer.py): a cassette's
entries line by line, and the agent a request's system message names."""
import json
import re
import sys

AGENT = re.compile(r"You are the (Planner|Coder|Compiler|Debug)")


def agent_of(messages):
    """The agent a request is for, from its system message (plain text or content parts)."""
    for m in messages or []:
        if m.get("role") == "system":
            content = m.get("content")
            if isinstance(content, list):
                content = " ".join(p.get("text", "") for p in content if isinstance(p, dict))
            found = AGENT.search(content or "")
            if found:
                return found.group(1)
    return "unknown"


def cassette_entries(path, who=""):
    """(line number, entry) of every non-empty line of a JSON-lines cassette; exits on a bad line."""
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                yield n, json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"{who}{path}:{n}: not JSON ({e})")
