#!/usr/bin/env python3
"""Warm `kbidx mcp` search calls, timed by the server itself.

Pipes one `initialize` and, for every question of tests/fixtures/eval/*/<corpus>.jsonl, a
`search` call with the question and one with its levelled keywords (ROUNDS times over) into one
`kbidx mcp` process, and reads the per-call times the server logs on stderr
(`kbidx mcp: search in X ms`): no client or process start in the figure. Needs only Python;
scripts/mcp-client/bench.mjs times calls as an MCP SDK client sees them.

usage: scripts/bench-mcp-log.py KBIDX INDEX KNOWLEDGE [--corpus fulltext] [--rounds 2]
The search cache is $KBIDX_CACHE_DIR as usual (warm it with one run first)."""
import argparse
import glob
import json
import os
import statistics
import subprocess

parser = argparse.ArgumentParser()
parser.add_argument("kbidx")
parser.add_argument("index")
parser.add_argument("knowledge")
parser.add_argument("--corpus", default="fulltext")
parser.add_argument("--rounds", type=int, default=2)
args = parser.parse_args()

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
questions = []
for path in sorted(glob.glob(f"{root}/tests/fixtures/eval/*/{args.corpus}.jsonl")):
    with open(path, encoding="utf-8") as f:
        questions += [json.loads(line) for line in f if line.strip()]


def request(i, method, params):
    return json.dumps({"jsonrpc": "2.0", "id": i, "method": method, "params": params}) + "\n"


lines = [
    request(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "bench-mcp-log", "version": "0"}}),
    json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n",
]
kinds = []
for _ in range(args.rounds):
    for q in questions:
        keywords = {k: v for k, v in q["keywords"].items() if v}
        for kind, arguments in (("question", {"question": q["query"]}), ("keywords", keywords)):
            lines.append(request(len(kinds) + 1, "tools/call", {"name": "search", "arguments": arguments}))
            kinds.append(kind)
run = subprocess.run(
    [args.kbidx, "--config", "/dev/null", "mcp", "--index", args.index, "--knowledge", args.knowledge],
    input="".join(lines).encode(), capture_output=True, check=False)
log = run.stderr.decode()
times = [float(line.split(" in ")[1].split()[0])
         for line in log.splitlines() if line.startswith("kbidx mcp: search in ")]
if len(times) != len(kinds):
    raise SystemExit(f"{len(times)} timed calls for {len(kinds)} requests:\n{log[-2000:]}")
for kind in ("question", "keywords"):
    t = sorted(x for x, k in zip(times, kinds) if k == kind)
    p95 = t[max(0, -(-95 * len(t) // 100) - 1)]
    print(f"{kind}: {len(t)} calls, median {statistics.median(t):.2f} ms, p95 {p95:.2f} ms, max {t[-1]:.2f} ms")
