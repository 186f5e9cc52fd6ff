#!/usr/bin/env bash
# install-pre-commit.sh — install a plain git pre-commit hook that keeps the kbidx index fresh.
#
# Usage: scripts/install-pre-commit.sh [--force]
#   Run it inside the repository to protect (kbidx's own, or any repo with a knowledge
#   directory). It writes the hook to `git rev-parse --git-path hooks/pre-commit`.
#   An existing, different hook is left alone unless --force is given (then it is kept
#   as pre-commit.bak).
#
# The hook runs `kbidx build --check`:
#   up to date   -> commit proceeds, unless the index file has unstaged changes
#                   (then: `git add` it);
#   stale        -> runs `kbidx build` to rewrite the index and fails the commit, asking
#                   you to review and `git add` the index;
#   error        -> fails the commit with kbidx's message.
# Which kbidx: $KBIDX if set; in kbidx's own repository `cargo run --release --quiet --`
# (the index must match the source being committed, not an older installed binary);
# elsewhere `kbidx` on PATH.
# Note: the check reads the working tree, not the staged snapshot; with partially staged
# knowledge files it checks what is on disk.
set -euo pipefail

force=0
case "${1:-}" in
  "") ;;
  --force) force=1 ;;
  -h | --help)
    sed -n '2,20p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  *)
    echo "install-pre-commit: unknown argument $1 (usage: install-pre-commit.sh [--force])" >&2
    exit 2
    ;;
esac

git rev-parse --git-dir >/dev/null 2>&1 || { echo "install-pre-commit: not inside a git repository" >&2; exit 2; }
hook=$(git rev-parse --path-format=absolute --git-path hooks/pre-commit 2>/dev/null ||
  (cd "$(git rev-parse --show-toplevel)" && realpath -m "$(git rev-parse --git-path hooks/pre-commit)"))

new=$(mktemp)
trap 'rm -f "$new"' EXIT
cat > "$new" <<'HOOK'
#!/bin/sh
# kbidx pre-commit hook (installed by scripts/install-pre-commit.sh; reinstall with --force).
# Fails the commit when the kbidx index is stale; rebuilds it so you can `git add` it.
top=$(git rev-parse --show-toplevel) || exit 1
cd "$top" || exit 1

if [ -n "${KBIDX:-}" ]; then
  run_kbidx() { "$KBIDX" "$@"; }
elif [ -f Cargo.toml ] && grep -q '^name = "kbidx"' Cargo.toml; then
  run_kbidx() { cargo run --release --quiet -- "$@"; }
elif command -v kbidx >/dev/null 2>&1; then
  run_kbidx() { kbidx "$@"; }
else
  echo "pre-commit: kbidx not found on PATH (cargo install --path <kbidx checkout>, or set KBIDX)" >&2
  exit 1
fi

# The index path: kbidx.toml's `index = "..."`, else the default.
index=index/index.toon
if [ -f kbidx.toml ]; then
  configured=$(sed -n 's/^[[:space:]]*index[[:space:]]*=[[:space:]]*"\([^"]*\)".*/\1/p' kbidx.toml | head -n 1)
  [ -n "$configured" ] && index=$configured
fi

run_kbidx build --check --quiet
status=$?
case $status in
  0)
    if ! git diff --quiet -- "$index"; then
      echo "pre-commit: $index has unstaged changes; run: git add $index" >&2
      exit 1
    fi
    exit 0
    ;;
  1)
    echo "pre-commit: $index was stale; rebuilding it with kbidx build" >&2
    run_kbidx build || exit 1
    echo "pre-commit: $index rebuilt. Review it, then: git add $index && git commit" >&2
    exit 1
    ;;
  *)
    echo "pre-commit: kbidx build --check failed (exit $status)" >&2
    exit 1
    ;;
esac
HOOK

if [ -e "$hook" ]; then
  if cmp -s "$new" "$hook"; then
    echo "install-pre-commit: $hook is already installed and up to date"
    exit 0
  fi
  if [ "$force" -ne 1 ]; then
    echo "install-pre-commit: $hook exists and differs; not overwriting (use --force; the old hook is kept as pre-commit.bak)" >&2
    exit 1
  fi
  cp -p "$hook" "$hook.bak"
  echo "install-pre-commit: kept the previous hook as $hook.bak"
fi
mkdir -p "$(dirname "$hook")"
cp "$new" "$hook"
chmod +x "$hook"
echo "install-pre-commit: installed $hook"
