#!/usr/bin/env bash
# check-shared.sh — corpus-scale checks of `kbidx build` against ../shared/corpora.
#
# For each of nabledge-6-{small,large,fulltext}:
#   1. build the index with the release binary into a temp dir and check its row count
#      (small 160, large 1411, fulltext 10277: the page-text rows `_page` and the sections without an index entry included; header N and row lines must agree);
#   2. verify it with scripts/verify-toon.mjs (official TS decoder == jq + src/extract.jq);
#   3. determinism: a second build is byte-identical, and a build from a `cp -r` copy of
#      the corpus in another directory is byte-identical (and `build --check` agrees).
#
# Usage: scripts/check-shared.sh            (from anywhere inside the repo)
# Env:   KBIDX=/path/to/kbidx   use this binary instead of building the release one
#        CARGO_TARGET_DIR       honoured when locating/building the release binary
# Exit:  0 all checks pass (or ../shared is missing: "skipped: ../shared not found"),
#        1 any check failed.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
shared="$root/../shared"
if [ ! -d "$shared" ]; then
  echo "skipped: ../shared not found"
  exit 0
fi
shared=$(cd "$shared" && pwd)

declare -A expected=([nabledge-6-small]=160 [nabledge-6-large]=1411 [nabledge-6-fulltext]=10277)
corpora=(nabledge-6-small nabledge-6-large nabledge-6-fulltext)

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# The release binary.
if [ -z "${KBIDX:-}" ]; then
  echo "== cargo build --release --locked"
  (cd "$root" && cargo build --release --locked --quiet)
  target_dir=${CARGO_TARGET_DIR:-$root/target}
  case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac
  KBIDX="$target_dir/release/kbidx"
fi
[ -x "$KBIDX" ] || { echo "FAIL: no kbidx binary at $KBIDX" >&2; exit 1; }

# The official decoder.
if [ ! -d "$root/scripts/node_modules/@toon-format/toon" ]; then
  echo "== npm ci --prefix scripts"
  npm ci --prefix "$root/scripts" --no-audit --no-fund --loglevel=error
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Builds corpus dir $1 into $2. Runs in $tmp so that no kbidx.toml of the repo applies.
# kbidx's stderr (warnings) goes to $2.stderr; it is shown when the build fails.
build() {
  if (cd "$tmp" && "$KBIDX" build --quiet --knowledge "$1" --out "$2") 2>"$2.stderr"; then
    return 0
  fi
  cat "$2.stderr" >&2
  return 1
}

for name in "${corpora[@]}"; do
  corpus="$shared/corpora/$name"
  want=${expected[$name]}
  echo "== $name"
  if [ ! -d "$corpus" ]; then
    fail "$name: $corpus not found"
    continue
  fi
  out="$tmp/$name.toon"
  start=$SECONDS
  if ! build "$corpus" "$out"; then
    fail "$name: kbidx build failed"
    continue
  fi
  echo "built in $((SECONDS - start))s, $(grep -c '^warning:' "$out.stderr" || true) warning(s)"

  # 1. Row count: the header's N and the number of row lines must both be the expected count.
  header=$(head -n 1 "$out")
  declared=$(sed -n '1s/^sections\[\([0-9]*\)\]{reference,title,hints\(,terms\)\{0,1\}}:$/\1/p' "$out")
  rows=$(grep -c '^  ' "$out" || true)
  lines=$(wc -l < "$out")
  if [ "$declared" != "$want" ] || [ "$rows" != "$want" ] || [ "$lines" != "$((want + 1))" ]; then
    fail "$name: expected $want rows; header '$header', $rows row lines, $lines lines"
  else
    echo "rows: $rows (expected $want)"
  fi

  # 2. The official decoder agrees with jq + src/extract.jq.
  if ! node "$root/scripts/verify-toon.mjs" --name "$name" "$corpus" "$out"; then
    fail "$name: verify-toon.mjs found a difference (see above)"
  fi

  # 3a. Same input, same bytes.
  if ! build "$corpus" "$out.again"; then
    fail "$name: second build failed"
  elif ! cmp -s "$out" "$out.again"; then
    fail "$name: two builds of the same tree differ: $(cmp "$out" "$out.again" 2>&1 | head -n 1)"
  elif ! cmp -s "${out%.toon}.links.toon" "$out.again.links.toon"; then
    fail "$name: the links files of two builds of the same tree differ"
  else
    echo "deterministic: second build byte-identical"
  fi

  # 3b. Same content elsewhere, same bytes (no absolute paths, no dependence on location).
  copy=$(mktemp -d "$tmp/copy.XXXXXX")
  cp -r "$corpus" "$copy/corpus"
  if ! build "$copy/corpus" "$out.copy"; then
    fail "$name: build from the copy failed"
  elif ! cmp -s "$out" "$out.copy"; then
    fail "$name: build from a copy in $copy differs: $(cmp "$out" "$out.copy" 2>&1 | head -n 1)"
  elif ! (cd "$tmp" && "$KBIDX" build --check --quiet --knowledge "$copy/corpus" --out "$out") >"$out.check" 2>&1; then
    cat "$out.check" >&2
    fail "$name: build --check on the copy reports the index stale"
  else
    echo "deterministic: build from a copy in another directory byte-identical"
  fi
  rm -rf "$copy"
done

if [ "$failures" -gt 0 ]; then
  echo "check-shared: $failures check(s) failed" >&2
  exit 1
fi
echo "check-shared: all checks passed"
