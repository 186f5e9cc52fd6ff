#!/usr/bin/env bash
# check-packages.sh: the npm package and the PyPI wheel of x86_64-unknown-linux-gnu, built from
# this repository, installed and used as a new user would, with no Rust toolchain on PATH.
#
#   scripts/check-packages.sh          (after `cargo build --release --locked`; .ci/run step 7)
#
# 1. npm: scripts/npm-package.sh packs `kbidx` and `@kbidx/linux-x64` around the release binary;
#    `npm install -g` of the two tarballs into a fresh prefix (registry unreachable on purpose:
#    the other platforms' optional packages are skipped, nothing is fetched).
# 2. PyPI: `maturin build --release --locked` (maturin from PyPI in a throwaway venv; it reuses
#    the release build of the same target directory, so nothing is compiled again), then
#    `pip install --no-index` of the wheel into a fresh venv.
# For each: with PATH = the install's bin directory + the system's, without ~/.cargo/bin (and
# checked: no cargo, no rustc), in a fresh git repository holding a copy of a knowledge base
# (../shared/corpora/nabledge-6-small when present, else tests/fixtures/knowledge) as
# knowledge/: `kbidx --version`, `kbidx init`, `kbidx search`, the MCP server started from the
# generated .mcp.json and .vscode/mcp.json and called through the official MCP SDK client
# (scripts/mcp-client/from-config.mjs; `npm ci --prefix scripts/mcp-client` first), and
# `pre-commit run --all-files` with the generated .pre-commit-config.yaml.
set -euo pipefail
exec </dev/null

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
target_dir=${CARGO_TARGET_DIR:-target}
case "$target_dir" in /*) ;; *) target_dir="$root/$target_dir" ;; esac
binary=$target_dir/release/kbidx
[ -x "$binary" ] || { echo "check-packages: $binary not found (cargo build --release --locked first)" >&2; exit 2; }
[ -d scripts/mcp-client/node_modules ] || { echo "check-packages: run npm ci --prefix scripts/mcp-client first" >&2; exit 2; }
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
if [ -d ../shared/corpora/nabledge-6-small ]; then
  knowledge=$(cd ../shared/corpora/nabledge-6-small && pwd)
else
  knowledge=$root/tests/fixtures/knowledge
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/kbidx-packages.XXXXXX")
trap 'rm -rf "$work"' EXIT
export KBIDX_CACHE_DIR=$work/kbidx-cache PRE_COMMIT_HOME=$work/pre-commit-home
started=$SECONDS
say() { echo "check-packages: $* (t+$((SECONDS - started))s)"; }

say "tools: maturin and pre-commit from PyPI into a throwaway venv"
python3 -m venv "$work/tools"
"$work/tools/bin/pip" install --quiet --disable-pip-version-check "maturin==1.16.0" "pre-commit==4.7.0"

say "npm: pack kbidx and @kbidx/linux-x64 $version, install into a fresh prefix"
scripts/npm-package.sh x86_64-unknown-linux-gnu "$binary" "$work/npm"
npm install -g --prefix "$work/npm-prefix" --no-audit --no-fund --loglevel=error \
  --registry http://127.0.0.1:9/ --fetch-retries 0 \
  "$work/npm/kbidx-linux-x64-$version.tgz" "$work/npm/kbidx-$version.tgz"

say "PyPI: maturin build --release --locked, pip install --no-index into a fresh venv"
"$work/tools/bin/maturin" build --release --locked --quiet --out "$work/wheels" 2>&1 | tail -n 2
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check --no-index "$work/wheels"/kbidx-"$version"-*.whl

# The system's PATH without any directory that holds cargo or rustc (rustup's ~/.cargo/bin; a
# distribution's cargo in /usr/bin would take node and git with it, and the run fails loudly).
clean_path=""
IFS=: read -r -a dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  [ -n "$d" ] || continue
  [ -e "$d/cargo" ] || [ -e "$d/rustc" ] && continue
  clean_path=${clean_path:+$clean_path:}$d
done

use() {
  local name=$1 bin=$2
  local repo=$work/$name/repo
  mkdir -p "$repo"
  cp -R "$knowledge" "$repo/knowledge"
  chmod -R u+w "$repo"
  (
    export PATH="$bin:$clean_path"
    # (`! cmd` would not stop the script under set -e: test it explicitly.)
    if command -v cargo || command -v rustc; then
      echo "check-packages: a Rust toolchain is still on PATH" >&2
      exit 1
    fi
    test "$(command -v kbidx)" = "$bin/kbidx"
    set -x
    kbidx --version
    cd "$repo"
    git init --quiet .
    kbidx init
    question=$(kbidx init --format json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).example.question))')
    kbidx search "$question" --top 3 --max-tokens 400
    node "$root/scripts/mcp-client/from-config.mjs" . "$question"
    git add -A
    "$work/tools/bin/pre-commit" run --all-files
  )
}

say "npm install: kbidx init, search, MCP from .mcp.json, pre-commit"
use npm "$work/npm-prefix/bin"
say "wheel install: kbidx init, search, MCP from .mcp.json, pre-commit"
use wheel "$work/venv/bin"
say "passed"
