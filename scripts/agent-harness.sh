#!/usr/bin/env bash
# Sets up an agent run: what an agent following SKILL.md pays for kbidx's output.
#
#   scripts/agent-harness.sh DIR KBIDX SKILL.md CORPUS QUESTIONS.jsonl [N]
#
# Makes DIR with: bin/kbidx, a wrapper that runs KBIDX with `--config /dev/null`, the index and
# knowledge of ../shared/corpora/CORPUS, and logs every call (its arguments, and what it printed,
# in DIR/log/NNNN.{args,out}); SKILL.md; q.jsonl, the first N questions of QUESTIONS.jsonl (id and
# question only, default all); and PROMPT.md, the task for a helper acting as the agent (see
# tests/fixtures/agent-runs/PROMPT.md). After the run, scripts/agent-report.py DIR scores it.
set -euo pipefail
dir=$1 kbidx=$(realpath "$2") skill=$3 corpus=$4 questions=$5 n=${6:-100000}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
knowledge=$(realpath "$root/../shared/corpora/$corpus")
mkdir -p "$dir/bin" "$dir/log" "$dir/real"
dir=$(realpath "$dir")
cp "$kbidx" "$dir/real/kbidx"
cp "$skill" "$dir/SKILL.md"
"$dir/real/kbidx" --config /dev/null build --knowledge "$knowledge" --out "$dir/index.toon" --quiet
head -n "$n" "$questions" | python3 -c '
import json, sys
for line in sys.stdin:
    c = json.loads(line)
    print(json.dumps({"id": c["id"], "question": c["query"]}, ensure_ascii=False))' > "$dir/q.jsonl"
cat > "$dir/bin/kbidx" <<WRAP
#!/usr/bin/env bash
# Logs each call and what it printed: what the agent pays.
n=\$(ls "$dir/log" | grep -c args || true)
id=\$(printf %04d "\$n")
printf '%s\n' "\$@" > "$dir/log/\$id.args"
cat "$dir/current" > "$dir/log/\$id.q" 2>/dev/null || true
sub=\$1; shift
case "\$sub" in
  search|read) extra=(--index "$dir/index.toon" --knowledge "$knowledge") ;;
  *) extra=() ;;
esac
KBIDX_CACHE_DIR="$dir/cache" "$dir/real/kbidx" --config /dev/null "\$sub" "\${extra[@]}" "\$@" | tee "$dir/log/\$id.out"
exit \${PIPESTATUS[0]}
WRAP
chmod +x "$dir/bin/kbidx"
cat > "$dir/PROMPT.md" <<P
You are an AI agent answering developers' questions from a knowledge base, using the command
\`$dir/bin/kbidx\` exactly as the skill file $dir/SKILL.md tells you (read it first). The wrapper
already passes the index and knowledge directory: call it as \`$dir/bin/kbidx search ...\` and
\`$dir/bin/kbidx read ...\`. Use only kbidx: do not read the knowledge files, the repository, or
anything under /work except $dir. Do not pipe kbidx's output through head/cut/grep: read what it
prints, as an agent would.

Treat each question as a new session: start it with a search, even when an earlier question
showed you its section, and do not change an answer once written.
For each question in $dir/q.jsonl, in order: search and read as the skill says, judge the
sections you read High / Partial / None, write a short answer (3-8 sentences, in the question's
language) from the sections you judged High or Partial, and append ONE JSON line to
$dir/out.jsonl: {"id": "...", "high": ["file.json#sid", ...], "partial": [...], "answer": "..."}.
Before each question's first kbidx call, run \`echo ID > $dir/current\` (the question's id), so
that the log knows which question each call served. When all are done, reply with a short
summary: questions done, searches and reads per question, anything in SKILL.md or the output that
confused you or that you had to work around.
P
echo "$dir"
