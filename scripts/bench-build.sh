#!/usr/bin/env bash
# bench-build.sh — `kbidx build` against the jq CLI running the same extraction.
#
# Usage: scripts/bench-build.sh [CORPUS_DIR]
#   CORPUS_DIR defaults to ../shared/corpora/nabledge-6-large.
# Env:   KBIDX=/path/to/kbidx   use this binary instead of building the release one
#        CARGO_TARGET_DIR       honoured when locating/building the release binary
#        HYPERFINE_ARGS         extra hyperfine flags (default: --warmup 2)
# Needs: hyperfine, jq, cargo (unless KBIDX is set).
#
# One hyperfine invocation compares four commands, all in the same working directory,
# over the same files, producing the same records:
#   kbidx       `kbidx build --terms 0 --knowledge CORPUS --out $tmp/x.toon` (discovery,
#               jq via jaq, TOON encoding, atomic write; no derived terms, like jq).
#   kbidx-terms the same with the default derived `terms` column (for information).
#   jq-single   the fair equivalent: ONE jq process over every file, running src/extract.jq
#               unchanged, wrapped as `def extract($path): <src/extract.jq>; inputs |
#               extract(input_filename)`, with the files found by `find`, sorted in byte
#               order (LC_ALL=C) and passed by xargs, JSON lines written to a file. It does
#               not encode TOON, so it does slightly less work than kbidx.
#   jq-per-file what a shell script would do: `jq -c --arg path REL -f src/extract.jq FILE`
#               once per file (as scripts/verify-toon.mjs does); dominated by process start-up.
# Before timing, the script checks that both jq variants give the same records and as many
# as kbidx writes. It prints hyperfine's summary ("N times faster") and the median ratios
# computed from --export-json.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
corpus=${1:-$root/../shared/corpora/nabledge-6-large}
if [ ! -d "$corpus" ]; then
  echo "bench-build: corpus directory not found: $corpus" >&2
  exit 2
fi
corpus=$(cd "$corpus" && pwd)
for tool in hyperfine jq; do
  command -v "$tool" >/dev/null || { echo "bench-build: $tool not found (apt-get install -y $tool)" >&2; exit 2; }
done

if [ -z "${KBIDX:-}" ]; then
  (cd "$root" && cargo build --release --locked --quiet)
  target_dir=${CARGO_TARGET_DIR:-$root/target}
  case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac
  KBIDX="$target_dir/release/kbidx"
fi
[ -x "$KBIDX" ] || { echo "bench-build: no kbidx binary at $KBIDX" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Run everything from $tmp: no kbidx.toml applies, relative paths stay short.
cd "$tmp"
cp "$root/src/extract.jq" extract.jq
# shellcheck disable=SC2016 # $path is jq's, not the shell's
{
  echo 'def extract($path):'
  cat extract.jq
  echo ';'
  echo 'inputs | extract(input_filename)'
} > single.jq

q() { printf '%q' "$1"; }
list="cd $(q "$corpus") && find . -name '*.json' -type f | sed 's|^\./||' | LC_ALL=C sort"
# --terms 0: the same work as the jq program (no derived-terms column); kbidx-terms
# adds the default derived terms (tokenising every section's content).
cmd_kbidx="$(q "$KBIDX") build --quiet --terms 0 --knowledge $(q "$corpus") --out $(q "$tmp/x.toon")"
cmd_kbidx_terms="$(q "$KBIDX") build --quiet --knowledge $(q "$corpus") --out $(q "$tmp/t.toon")"
cmd_single="($list | xargs -d '\n' jq -c -n -f $(q "$tmp/single.jq")) > $(q "$tmp/single.jsonl")"
cmd_per_file="($list | while IFS= read -r f; do jq -c --arg path \"\$f\" -f $(q "$tmp/extract.jq") \"\$f\"; done) > $(q "$tmp/per-file.jsonl")"

# Sanity: same records from both jq variants, and as many as kbidx writes.
bash -c "$cmd_kbidx"
bash -c "$cmd_single"
bash -c "$cmd_per_file"
records() { jq -c 'select(has("warning") | not)' "$1"; }
if ! cmp -s <(records single.jsonl) <(records per-file.jsonl); then
  echo "bench-build: the two jq variants disagree; not benchmarking" >&2
  exit 1
fi
n_jq=$(records single.jsonl | wc -l)
n_kbidx=$(sed -n '1s/^sections\[\([0-9]*\)\].*/\1/p' x.toon)
if [ "$n_jq" != "$n_kbidx" ]; then
  echo "bench-build: jq gives $n_jq records, kbidx wrote $n_kbidx; not benchmarking" >&2
  exit 1
fi
files=$(cd "$corpus" && find . -name '*.json' -type f | wc -l)
echo "corpus: $corpus ($files JSON files, $n_kbidx records)"
echo "kbidx: $KBIDX ($("$KBIDX" --version))"
echo "jq: $(jq --version)"
echo

# shellcheck disable=SC2086 # HYPERFINE_ARGS is a list of flags
hyperfine ${HYPERFINE_ARGS:---warmup 2} \
  --export-json "$tmp/bench.json" \
  --command-name kbidx "$cmd_kbidx" \
  --command-name kbidx-terms "$cmd_kbidx_terms" \
  --command-name jq-single "$cmd_single" \
  --command-name jq-per-file "$cmd_per_file"

echo
echo "median times (from --export-json):"
jq -r '
  (.results[] | select(.command == "kbidx") | .median) as $k
  | .results[]
  | "  \(.command): \(.median * 1000 * 10 | round / 10) ms median"
    + (if .command == "kbidx" then "" else ", \(.median / $k * 100 | round / 100)x kbidx" end)
' "$tmp/bench.json"
