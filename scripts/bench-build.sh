#!/usr/bin/env bash
# bench-build.sh — `kbidx build` against the jq CLI running the same extraction.
#
# Usage: scripts/bench-build.sh [CORPUS_DIR]
#   CORPUS_DIR defaults to ../shared/corpora/nabledge-6-large.
# Env:   KBIDX=/path/to/kbidx   use this binary instead of building the release one
#        CARGO_TARGET_DIR       honoured when locating/building the release binary
#        HYPERFINE_ARGS         extra hyperfine flags (default: --warmup 2)
#        PER_FILE=0             leave out jq-per-file (8 s a run), e.g. for many runs
#        PAIRS=N                afterwards, time kbidx and jq-single N times each,
#                               alternating (default 0: off; see below)
# Needs: hyperfine, jq, cargo (unless KBIDX is set).
#
# One hyperfine invocation compares four commands, all in the same working directory,
# over the same files, producing the same records:
#   kbidx       `kbidx build --no-cache --terms 0 --knowledge CORPUS --out $tmp/x.toon` (discovery,
#               jq via jaq, TOON encoding, atomic write; no derived terms and no
#               search cache, like jq).
#   kbidx-terms the same with the default derived `terms` column (for information).
#   jq-single   the fair equivalent: ONE jq process over every file, running src/extract.jq
#               unchanged, wrapped as `def extract($path): <src/extract.jq>; inputs |
#               extract(input_filename)`, with the files found by `find`, sorted in byte
#               order (LC_ALL=C) and passed by xargs, JSON lines written to a file. It does
#               not encode TOON, so it does slightly less work than kbidx.
#   jq-per-file what a shell script would do: `jq -c --arg path REL -f src/extract.jq FILE`
#               once per file (as scripts/verify-toon.mjs does); dominated by process start-up.
# hyperfine runs all of one command's runs before the next command's, so on a
# machine whose speed drifts (a shared 2-vCPU VM moves by 20-30% within minutes)
# its ratio mixes two different moments. PAIRS=N adds a drift-proof ratio: N
# pairs of one kbidx run and one jq-single run back to back, each timed with
# bash's $EPOCHREALTIME around `bash -c CMD` (so both include a shell start, which
# slightly favours jq), reporting both medians and the median of the N per-pair
# ratios.
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
cmd_kbidx="$(q "$KBIDX") build --quiet --no-cache --terms 0 --knowledge $(q "$corpus") --out $(q "$tmp/x.toon")"
cmd_kbidx_terms="$(q "$KBIDX") build --quiet --no-cache --knowledge $(q "$corpus") --out $(q "$tmp/t.toon")"
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

commands=(
  --command-name kbidx "$cmd_kbidx"
  --command-name kbidx-terms "$cmd_kbidx_terms"
  --command-name jq-single "$cmd_single"
)
if [ "${PER_FILE:-1}" != 0 ]; then
  commands+=(--command-name jq-per-file "$cmd_per_file")
fi
# shellcheck disable=SC2086 # HYPERFINE_ARGS is a list of flags
hyperfine ${HYPERFINE_ARGS:---warmup 2} --export-json "$tmp/bench.json" "${commands[@]}"

echo
echo "median times (from --export-json):"
jq -r '
  (.results[] | select(.command == "kbidx") | .median) as $k
  | .results[]
  | "  \(.command): \(.median * 1000 * 10 | round / 10) ms median"
    + (if .command == "kbidx" then "" else ", \(.median / $k * 100 | round / 100)x kbidx" end)
' "$tmp/bench.json"

if [ "${PAIRS:-0}" -gt 0 ]; then
  echo
  echo "alternating pairs (PAIRS=$PAIRS): kbidx, then jq-single, $PAIRS times"
  for _ in $(seq "$PAIRS"); do
    t0=$EPOCHREALTIME
    bash -c "$cmd_kbidx"
    t1=$EPOCHREALTIME
    bash -c "$cmd_single"
    t2=$EPOCHREALTIME
    echo "$t0 $t1 $t2"
  done > "$tmp/pairs.txt"
  awk '{ k = ($2 - $1) * 1000; j = ($3 - $2) * 1000; print k, j, j / k }' "$tmp/pairs.txt" > "$tmp/pairs.ms"
  median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
  k=$(cut -d' ' -f1 "$tmp/pairs.ms" | median)
  j=$(cut -d' ' -f2 "$tmp/pairs.ms" | median)
  r=$(cut -d' ' -f3 "$tmp/pairs.ms" | median)
  printf '  kbidx: %.1f ms median\n  jq-single: %.1f ms median\n  median of per-pair ratios: %.2fx\n' "$k" "$j" "$r"
fi
