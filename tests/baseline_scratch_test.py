#!/usr/bin/env python3
"""No shipped baseline allocates or frees device memory inside its timed entry point.

    python3 tests/baseline_scratch_test.py ROOT

The call is what is timed: a cudaMalloc / cudaFree there puts the host's allocator into the
yardstick every P is measured against (on the H200 such baselines moved 7-33% between leases at
the same device time). Scratch comes from kernels/include/mskb_scratch.cuh, kept between calls.
Checks every tasks/*/*/baseline_*.cu: the bodies of its extern "C" functions (comments and string
literals removed) must not name cudaMalloc*, cudaFree* or cudaMallocAsync. First proves the check
on a file that breaks the rule and one that keeps it.
"""
import pathlib
import re
import sys

ALLOC = re.compile(r"\bcuda(Malloc\w*|Free\w*)\s*\(")


def strip(src):
    """The source without comments and string or character literals (kept the same length)."""
    pat = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
    src = re.sub(r'\bextern\s+"C"', "extern_C", src)  # the one literal the check needs
    return pat.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), src)


def entry_bodies(src):
    """(name, body) of each extern "C" function definition."""
    out = []
    for m in re.finditer(r'\bextern_C\s+[^;{(]*?\b(\w+)\s*\(', src):
        i = src.find("{", m.end())
        j = src.find(";", m.end())
        if i < 0 or (0 <= j < i):  # a declaration
            continue
        depth, k = 0, i
        while k < len(src):
            depth += {"{": 1, "}": -1}.get(src[k], 0)
            if depth == 0:
                break
            k += 1
        out.append((m.group(1), src[i:k + 1]))
    return out


def offences(text):
    s = strip(text)
    return [f"{name}: {ALLOC.search(body).group(0).rstrip('( ')}" for name, body in entry_bodies(s) if ALLOC.search(body)]


def main(root):
    bad = """#include <cuda_runtime.h>
extern "C" void t(float* y, int n) {
  float* tmp = nullptr;  // "cudaMalloc(" in a comment does not count
  cudaMalloc(&tmp, n * sizeof(float));
  cudaDeviceSynchronize();
  cudaFree(tmp);
}"""
    good = """#include "mskb_scratch.cuh"
static mskb_scratch::Buffer<float> g_scratch;
struct Old { float* p = nullptr; float* get(size_t n) { if (!p) cudaMalloc(&p, n * 4); return p; } ~Old() { cudaFree(p); } };
extern "C" void t(float* y, int n);
extern "C" void t(float* y, int n) { const char* s = "cudaFree("; float* tmp = g_scratch.get(n, "t"); (void)s; (void)tmp; }"""
    if offences(bad) != ["t: cudaMalloc", ] or offences(good):
        print(f"baseline_scratch_test: the check itself is wrong: {offences(bad)} / {offences(good)}", file=sys.stderr)
        return 1
    files = sorted(pathlib.Path(root).glob("tasks/*/*/baseline_*.cu"))
    if len(files) < 100:  # 50 tasks x FP32 and BF16
        print(f"baseline_scratch_test: only {len(files)} baselines under {root}/tasks", file=sys.stderr)
        return 1
    failed = 0
    for f in files:
        text = f.read_text()
        if not entry_bodies(strip(text)):
            print(f"{f.relative_to(root)}: no extern \"C\" entry point found", file=sys.stderr)
            failed += 1
        for o in offences(text):
            print(f"{f.relative_to(root)}: {o} inside the timed entry point: take scratch from mskb_scratch.cuh", file=sys.stderr)
            failed += 1
    print(f"baseline_scratch_test: {len(files)} baselines, {failed} problem(s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
