#!/usr/bin/env python3
"""What a search prints against the content it carries (docs/output.md, "The whole document
against its content"): the test split's helper-written keyword searches run at --max-tokens 2000
and 5000 in text, JSON and TOON, and over `kbidx mcp` (its text item and its structured result),
with one kbidx build. Needs ../shared and the indexes /tmp/idx-{large,fulltext}.toon made by that
build (`kbidx --config /dev/null build --knowledge ../shared/corpora/nabledge-6-C --out /tmp/idx-C.toon`).

    python3 scripts/document-size.py KBIDX LABEL

Prints per format and budget the median characters and estimated tokens of the whole output (the
estimate is kbidx's own, as scripts/agent-report.py ports it), the largest, the median share
of it that is the sections' text, and how many searches' share is under 0.8; for text output
also the tokens of paragraphs (20 characters or more, white space aside) printed a second time in
the same output, and in how many searches. A build whose JSON has `budget.content_tokens` (the lean
document) reports each format's own content; an older one hands over the same content in every
format, so its JSON's is used.
"""
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("report", os.path.join(here, "agent-report.py"))
report = importlib.util.module_from_spec(spec)
spec.loader.exec_module(report)
estimate = report.estimate


def content_of(fmt, out, json_content):
    """The estimated tokens of content the output states, else `json_content`."""
    if fmt == "text":
        m = re.search(r"; content (\d+) tokens\s*$", out)
    elif fmt == "toon":
        m = re.search(r"\n  content_tokens: (\d+)", out)
    else:
        m = re.search(r'"content_tokens":(\d+)', out)
    return int(m.group(1)) if m else json_content


def repeated(out):
    """Estimated tokens of `out`'s paragraphs that an earlier paragraph of it already printed."""
    seen, tokens = set(), 0
    for paragraph in re.split(r"\n\s*\n", out):
        key = "".join(paragraph.split())
        if len(key) >= 20 and key in seen:
            tokens += estimate(paragraph)
        seen.add(key)
    return tokens


def main():
    kbidx, label = sys.argv[1], sys.argv[2]
    cli, mcp = {}, []
    for corpus in ("large", "fulltext"):
        cases = [json.loads(l) for l in open(f"tests/fixtures/eval/test/{corpus}.jsonl", encoding="utf-8")]
        where = ["--index", f"/tmp/idx-{corpus}.toon", "--knowledge", f"../shared/corpora/nabledge-6-{corpus}"]
        for case in cases:
            keywords = json.dumps(case["keywords"], ensure_ascii=False)
            for budget in (2000, 5000):
                args = [kbidx, "--config", "/dev/null", "search", *where, "--keywords", "-", "--max-tokens", str(budget)]
                run = lambda fmt: subprocess.run(args + ["--format", fmt], input=keywords,
                                                 capture_output=True, text=True).stdout
                doc = run("json")
                json_content = sum(estimate(r.get("content") or "") for r in json.loads(doc)["results"])
                for fmt in ("text", "json", "toon"):
                    out = doc if fmt == "json" else run(fmt)
                    cli.setdefault((fmt, budget), []).append(
                        (len(out), estimate(out), content_of(fmt, out, json_content),
                         repeated(out) if fmt == "text" else 0))
        lines = ['{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"size","version":"0"}}}',
                 '{"jsonrpc":"2.0","method":"notifications/initialized"}']
        for i, case in enumerate(cases):
            arguments = {k: case["keywords"].get(k, []) for k in ("l1", "l2", "l3")}
            arguments["max_tokens"] = 5000
            lines.append(json.dumps({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                                     "params": {"name": "search", "arguments": arguments}}, ensure_ascii=False))
        out = subprocess.run([kbidx, "--config", "/dev/null", "mcp", *where], input="\n".join(lines) + "\n",
                             capture_output=True, text=True).stdout
        for line in out.splitlines():
            message = json.loads(line)
            if message.get("id", 0) == 0:
                continue
            result = message["result"]
            text = result["content"][0]["text"]
            structured = json.dumps(result["structuredContent"], ensure_ascii=False, separators=(",", ":"))
            content = sum(estimate(r.get("content") or "") for r in result["structuredContent"]["results"])
            mcp.append((estimate(text), estimate(structured), content))
    for (fmt, budget), rows in sorted(cli.items()):
        print(f"{label} {fmt} --max-tokens {budget}: median {int(statistics.median(r[0] for r in rows))} characters, "
              f"{int(statistics.median(r[1] for r in rows))} tokens (largest {max(r[1] for r in rows)}); "
              f"content share {statistics.median(r[2] / r[1] for r in rows):.3f}, "
              f"under 0.8 in {sum(1 for r in rows if r[2] < 0.8 * r[1])} of {len(rows)}"
              + (f"; paragraphs printed twice {sum(r[3] for r in rows) / sum(r[1] for r in rows):.2%} "
                 f"of tokens, in {sum(1 for r in rows if r[3])} searches" if fmt == "text" else ""))
    print(f"{label} mcp max_tokens 5000: median text item {int(statistics.median(r[0] for r in mcp))} tokens "
          f"(largest {max(r[0] for r in mcp)}), structured {int(statistics.median(r[1] for r in mcp))} tokens "
          f"(largest {max(r[1] for r in mcp)}), content {int(statistics.median(r[2] for r in mcp))} tokens")


if __name__ == "__main__":
    main()
