#!/usr/bin/env bash
# bench.sh — every kbidx benchmark in one go (release build): the three shared corpora side by
# side with their baselines, then a synthetic scale series. docs/benchmarks.md records a run.
#
# Usage: scripts/bench.sh [corpora|scale|all]          (default: all)
# Env:   KBIDX=/path/to/kbidx   use this binary instead of `cargo build --release --locked`
#        CARGO_TARGET_DIR       honoured when building/locating the release binary
#        RUNS                   hyperfine runs per command for the corpora (default 10)
#        SCALE_RUNS             hyperfine runs per command for the scale series (default 5)
#        SCALES                 synthetic sizes in sections (default "1000 10000 100000")
#        OUT                    directory for raw hyperfine JSON and logs (default: a temp dir,
#                               kept and printed at the end)
# Needs: hyperfine, jq, python3, /usr/bin/time (GNU time), ../shared for `corpora`.
#
# corpora: for nabledge-6-{small,large,fulltext}
#   build:  scripts/bench-build.sh CORPUS — one hyperfine invocation: kbidx build vs the jq CLI
#           running src/extract.jq (one jq process over all files, and one per file);
#   search: scripts/bench-search.sh CORPUS — one hyperfine invocation: kbidx search (question,
#           the question's keywords as --l3, the question with --no-cache) vs scripts/fullscan.py
#           (Python full-text scan); then the first search of the index (empty search cache).
# scale:  for N in SCALES, scripts/gen-synthetic.py N (100 sections per file), then
#   build:  hyperfine `kbidx build` (SCALE_RUNS runs, 1 warmup);
#   search: hyperfine kbidx-question / kbidx-keywords / kbidx-no-cache / python-scan, as
#           bench-search.sh (search cache warm), then kbidx-cold (cache emptied before each run);
#   size:   bytes of index.toon; peak RSS of one build and one search (/usr/bin/time -f %M).
#   Prints a markdown table: N, files, build median, search medians, index size, RSS.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
what=${1:-all}
case "$what" in corpora|scale|all) ;; *) echo "usage: scripts/bench.sh [corpora|scale|all]" >&2; exit 2 ;; esac
for tool in hyperfine jq python3; do
  command -v "$tool" >/dev/null || { echo "bench: $tool not found" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time not found (apt-get install -y time)" >&2; exit 2; }

if [ -z "${KBIDX:-}" ]; then
  (cd "$root" && cargo build --release --locked --quiet)
  target_dir=${CARGO_TARGET_DIR:-$root/target}
  case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac
  KBIDX="$target_dir/release/kbidx"
fi
export KBIDX
out=${OUT:-$(mktemp -d -t kbidx-bench-XXXXXX)}
mkdir -p "$out"
runs=${RUNS:-10}
scale_runs=${SCALE_RUNS:-5}

echo "kbidx: $KBIDX ($("$KBIDX" --version)), commit $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet -- src || echo ' + uncommitted src changes')"
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GB", $2/1048576}' /proc/meminfo), $(uname -sr); load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "tools: $(hyperfine --version), $(jq --version), $(python3 --version)"
echo "raw results: $out"

if [ "$what" != scale ]; then
  shared=$root/../shared/corpora
  [ -d "$shared" ] || { echo "bench: $shared not found" >&2; exit 2; }
  for c in nabledge-6-small nabledge-6-large nabledge-6-fulltext; do
    echo
    echo "######## build: $c"
    HYPERFINE_ARGS="--warmup 1 --runs $runs --export-markdown $out/build-$c.md" \
      "$root/scripts/bench-build.sh" "$shared/$c" 2>&1 | tee "$out/build-$c.log"
    echo
    echo "######## search: $c"
    RUNS=$runs "$root/scripts/bench-search.sh" "$shared/$c" 2>&1 | tee "$out/search-$c.log"
  done
fi

if [ "$what" != corpora ]; then
  question="データベースのトランザクションで楽観的ロックを使ってページングしたい"
  keywords="データベース,トランザクション,楽観的ロック,ページング"
  median() { jq -r --arg n "$2" '.results[] | select(.command == $n) | .median * 1000 | . * 10 | round / 10' "$1"; }
  rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
  table="| sections | files | build (ms) | search: question (ms) | search: keywords (ms) | search: no cache (ms) | first search (ms) | python scan (ms) | index.toon (bytes) | build RSS (MB) | search RSS (MB) |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for n in ${SCALES:-1000 10000 100000}; do
    echo
    echo "######## scale: $n sections"
    dir=$out/synthetic-$n
    rm -rf "$dir"
    python3 "$root/scripts/gen-synthetic.py" "$n" "$dir/knowledge"
    files=$(find "$dir/knowledge" -name '*.json' | wc -l)
    (
      cd "$dir"
      # The search cache lives with the run (warmed by the warmup runs; emptied for the cold ones).
      export KBIDX_CACHE_DIR="$dir/cache"
      hyperfine -N --warmup 1 --runs "$scale_runs" --export-json build.json \
        -n build "$KBIDX build -q --knowledge knowledge --out index.toon"
      hyperfine -N --warmup 2 --runs "$scale_runs" --export-json search.json \
        -n kbidx-question "$KBIDX search --index index.toon $question --format json" \
        -n kbidx-keywords "$KBIDX search --index index.toon --l3 $keywords --format json" \
        -n kbidx-no-cache "$KBIDX search --no-cache --index index.toon $question --format json" \
        -n python-scan "python3 $root/scripts/fullscan.py knowledge ${keywords//,/ }"
      hyperfine -N --runs "$scale_runs" --export-json cold.json --prepare "rm -rf $dir/cache" \
        -n kbidx-cold "$KBIDX search --index index.toon $question --format json"
    )
    size=$(wc -c < "$dir/index.toon")
    b_rss=$(cd "$dir" && rss "$KBIDX" build -q --knowledge knowledge --out index.toon)
    s_rss=$(cd "$dir" && KBIDX_CACHE_DIR="$dir/cache" rss "$KBIDX" search --index index.toon "$question" --format json)
    row="| $n | $files | $(median "$dir/build.json" build) | $(median "$dir/search.json" kbidx-question) | $(median "$dir/search.json" kbidx-keywords) | $(median "$dir/search.json" kbidx-no-cache) | $(median "$dir/cold.json" kbidx-cold) | $(median "$dir/search.json" python-scan) | $size | $((b_rss / 1024)) | $((s_rss / 1024)) |"
    echo "$row"
    table+=$'\n'"$row"
    rm -rf "$dir/knowledge"
  done
  echo
  echo "######## scale series (medians)"
  echo "$table" | tee "$out/scale.md"
fi
echo
echo "raw results kept in $out"
