#!/usr/bin/env bash
# bench-search.sh — one `kbidx search` question end to end against a corpus index,
# next to a plain Python full-text scan of the same knowledge files, in ONE hyperfine run.
#
# Usage: scripts/bench-search.sh [CORPUS_DIR] [QUESTION]
#   CORPUS_DIR defaults to ../shared/corpora/nabledge-6-fulltext (9,376 sections).
# Env:   KBIDX=/path/to/kbidx  use this binary instead of building the release one.
# Needs: hyperfine, python3, cargo (unless KBIDX is set).
#
# Commands timed (process start, dictionary load and output included), with the search cache
# in $tmp/cache (KBIDX_CACHE_DIR), warmed by hyperfine's warmup runs:
#   kbidx-question           kbidx search --index $tmp/index.toon --knowledge CORPUS "QUESTION" --format json
#                            (the body stage on, as shipped)
#   kbidx-question-no-body   the same with --no-body (index pass, fallback when unsure)
#   kbidx-keywords           kbidx search … --l3 <the question's keywords> --format json
#   kbidx-question-no-cache  the question with --no-cache (checks and scans every row, builds
#                            the body index from the knowledge files)
#   python-scan              scripts/fullscan.py CORPUS <the same keywords>
# then, in a second hyperfine run, the first search of the index (cache emptied before each run):
#   kbidx-question-cold      the question, building and writing the cache entries
# Prints hyperfine's summaries and the median ratios (python / kbidx).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
corpus=${1:-$root/../shared/corpora/nabledge-6-fulltext}
question=${2:-バッチでエラーが起きたときにどこまで処理済みか分からなくなることがある。リランや継続実行の仕組みを確認したい。}
[ -d "$corpus" ] || { echo "bench-search: corpus directory not found: $corpus" >&2; exit 2; }
corpus=$(cd "$corpus" && pwd)
for tool in hyperfine python3; do
  command -v "$tool" >/dev/null || { echo "bench-search: $tool not found" >&2; exit 2; }
done
if [ -z "${KBIDX:-}" ]; then
  (cd "$root" && cargo build --release --locked --quiet)
  target_dir=${CARGO_TARGET_DIR:-$root/target}
  case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac
  KBIDX="$target_dir/release/kbidx"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export KBIDX_CACHE_DIR="$tmp/cache"
"$KBIDX" build -q --knowledge "$corpus" --out index.toon 2>/dev/null
keywords=$("$KBIDX" search --index index.toon --knowledge "$corpus" "$question" --format json --top 1 \
  | python3 -c 'import json,sys; print(",".join(json.load(sys.stdin)["keywords"]["q"]))')
echo "index: $(wc -c < index.toon) bytes, $(head -1 index.toon | cut -c1-40)…"
echo "keywords: $keywords"

q() { printf '%q' "$1"; }
hyperfine -N --warmup 3 --runs "${RUNS:-30}" --export-json bench.json \
  -n kbidx-question "$(q "$KBIDX") search --index index.toon --knowledge $(q "$corpus") $(q "$question") --format json" \
  -n kbidx-question-no-body "$(q "$KBIDX") search --no-body --index index.toon --knowledge $(q "$corpus") $(q "$question") --format json" \
  -n kbidx-keywords "$(q "$KBIDX") search --index index.toon --knowledge $(q "$corpus") --l3 $(q "$keywords") --format json" \
  -n kbidx-question-no-cache "$(q "$KBIDX") search --no-cache --index index.toon --knowledge $(q "$corpus") $(q "$question") --format json" \
  -n python-scan "python3 $(q "$root/scripts/fullscan.py") $(q "$corpus") ${keywords//,/ }"
hyperfine -N --runs "${COLD_RUNS:-10}" --export-json cold.json \
  --prepare "rm -rf $(q "$tmp/cache")" \
  -n kbidx-question-cold "$(q "$KBIDX") search --index index.toon --knowledge $(q "$corpus") $(q "$question") --format json"
python3 - <<'PY'
import json, statistics
r = {x["command"]: statistics.median(x["times"])
     for f in ("bench.json", "cold.json") for x in json.load(open(f))["results"]}
for name in ("kbidx-question", "kbidx-question-no-body", "kbidx-keywords", "kbidx-question-no-cache", "kbidx-question-cold"):
    print(f"{name}: median {r[name]*1000:.1f} ms; python-scan / {name} = {r['python-scan']/r[name]:.1f}x")
PY
