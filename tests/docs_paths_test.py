#!/usr/bin/env python3
"""Every path the project's Markdown names in the repository exists in it.

    python3 tests/docs_paths_test.py ROOT

The docs stand on their own only if what they point at is there: a file moved or dropped (results
moved into a bundle, a header moved to tests/support) must take its references with it. Checks every
tracked *.md (git ls-files; every *.md below ROOT without git): each token that starts with one of
ROOT's top-level folders (docs/, scripts/, tasks/, ...) must name a tracked file or folder, and each
relative Markdown link ](path) and each `../path` must resolve from the file's folder. Not checked: globs and patterns
(followed by *, { or <), placeholders in capitals (data/demo/NAME), lines that say the file is
elsewhere on purpose (a bundle, git history: "bundle", "git show", "git history"), and transcripts
(fenced blocks with a `$ ` command line: the user's own files). First proves the check on a document
that breaks the rule and one that keeps it.
"""
import os
import pathlib
import re
import subprocess
import sys
import tempfile

ELSEWHERE = ("bundle", "git show", "git history")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
RELATIVE = re.compile(r"`(\.\./[A-Za-z0-9_./-]*[A-Za-z0-9_])`")  # `../x/y.md`: from the file's folder


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True, check=True).stdout
        files = [f for f in out.decode().split("\0") if f]
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    return [str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and ".git" not in p.parts and "build" not in p.parts[:1]]


def skipped(path, after):
    """A glob or pattern (followed by *, { or <) or a placeholder in capitals (data/demo/NAME)."""
    return after in ("*", "{", "<") or re.search(r"/[A-Z]{3,}(/|\.|$)", path) is not None


def problems(root, md_files, tracked):
    names = set(tracked)
    for t in tracked:
        d = os.path.dirname(t)
        while d:
            names.add(d)
            d = os.path.dirname(d)
    tops = sorted({t.split("/", 1)[0] for t in tracked if "/" in t}, key=len, reverse=True)
    token = re.compile(r"(?<![\w./$~-])((?:" + "|".join(re.escape(t) for t in tops) + r")/[A-Za-z0-9_./-]*[A-Za-z0-9_])")
    out = []
    for md in md_files:
        lines = (root / md).read_text(errors="replace").splitlines()
        in_fence, transcript, fence_start = False, False, 0
        for i, line in enumerate(lines, 1):
            if line.lstrip().startswith("```"):
                in_fence = not in_fence
                if in_fence:
                    j = i
                    while j < len(lines) and not lines[j].lstrip().startswith("```"):
                        j += 1
                    transcript = any(l.lstrip().startswith("$ ") for l in lines[i:j])
                continue
            if in_fence and transcript:
                continue
            if any(w in line for w in ELSEWHERE):
                continue
            for m in token.finditer(line):
                path = m.group(1).rstrip(".")
                if skipped(path, line[m.end():m.end() + 1]):
                    continue
                if path not in names:
                    out.append(f"{md}:{i}: {path} is not in the repository")
            for m in list(LINK.finditer(line)) + list(RELATIVE.finditer(line)):
                target = m.group(1)
                if re.match(r"[a-z]+:", target) or skipped(target, line[m.end():m.end() + 1]):
                    continue
                resolved = os.path.normpath(os.path.join(os.path.dirname(md), target))
                if resolved not in names:
                    out.append(f"{md}:{i}: link {target} does not resolve")
    return out


def prove():
    tracked = ["docs/a.md", "docs/b.md", "scripts/run.sh", "tasks/x/spec.cpp"]
    texts = {"docs/a.md": "Run `scripts/run.sh`; spec in tasks/x/spec.cpp; see [b](b.md) and tasks/*/spec.cpp.\n"
                          "The old run is in the bundle: docs/results/gone.md\n```\n$ mskb build --kernel scripts/mine.cu\n```\n"
                          "data/demo/NAME is a placeholder.\n",
             "docs/b.md": "Moved: `scripts/old.sh`, [gone](../tasks/y/spec.cpp), `../scripts/run.sh`, `../docs/c.md`, `../examples/NAME/task.toml`.\n"}
    with tempfile.TemporaryDirectory() as d:
        root = pathlib.Path(d)
        for t in tracked:
            (root / t).parent.mkdir(parents=True, exist_ok=True)
            (root / t).write_text(texts.get(t, ""))
        got = problems(root, ["docs/a.md", "docs/b.md"], tracked)
    want = ["docs/b.md:1: scripts/old.sh is not in the repository", "docs/b.md:1: link ../tasks/y/spec.cpp does not resolve",
            "docs/b.md:1: link ../docs/c.md does not resolve"]
    if got != want:
        sys.exit(f"FAIL: the check itself: got {got}, want {want}")


def main():
    prove()
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    tracked = tracked_files(root)
    md = [t for t in tracked if t.endswith(".md")]
    bad = problems(root, md, tracked)
    for b in bad:
        print(b)
    if bad:
        sys.exit(f"FAIL: {len(bad)} path(s) named in the docs are not in the repository")
    print(f"{len(md)} Markdown files: every repository path they name exists")


if __name__ == "__main__":
    main()
