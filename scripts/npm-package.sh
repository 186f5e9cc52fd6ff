#!/usr/bin/env bash
# npm-package.sh: the npm packages of one release target, from a built binary.
#
#   scripts/npm-package.sh TARGET BINARY OUT
#   e.g. scripts/npm-package.sh x86_64-unknown-linux-gnu target/release/kbidx dist/npm
#
# Writes OUT/kbidx (the launcher package, packaging/npm/kbidx) and OUT/<platform> (the
# platform package @kbidx/<platform> holding BINARY as bin/kbidx[.exe]), then packs both into
# OUT/*.tgz with `npm pack`. The version is the crate's (Cargo.toml); the launcher package's
# package.json must carry the same one. Needs node and npm, nothing from the network.
set -euo pipefail

if [ "$#" -ne 3 ]; then
  echo "usage: $0 TARGET BINARY OUT" >&2
  exit 2
fi
target=$1 binary=$2 out=$3
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

case "$target" in
  x86_64-unknown-linux-gnu) platform=linux-x64 os=linux cpu=x64 exe=kbidx ;;
  aarch64-unknown-linux-gnu) platform=linux-arm64 os=linux cpu=arm64 exe=kbidx ;;
  x86_64-apple-darwin) platform=darwin-x64 os=darwin cpu=x64 exe=kbidx ;;
  aarch64-apple-darwin) platform=darwin-arm64 os=darwin cpu=arm64 exe=kbidx ;;
  x86_64-pc-windows-msvc) platform=win32-x64 os=win32 cpu=x64 exe=kbidx.exe ;;
  *) echo "$0: no npm platform for target $target" >&2; exit 2 ;;
esac
[ -f "$binary" ] || { echo "$0: $binary: no such file" >&2; exit 2; }

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$root/Cargo.toml" | head -n 1)
launcher_version=$(node -p 'require(process.argv[1]).version' "$root/packaging/npm/kbidx/package.json")
if [ "$launcher_version" != "$version" ]; then
  echo "$0: packaging/npm/kbidx/package.json has version $launcher_version, Cargo.toml $version" >&2
  exit 2
fi

mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -rf "$out/kbidx" "$out/$platform"

# The launcher package.
mkdir -p "$out/kbidx"
cp -R "$root/packaging/npm/kbidx/." "$out/kbidx/"
cp "$root/LICENSE" "$out/kbidx/LICENSE"
cat >"$out/kbidx/README.md" <<TEXT
# kbidx

Section index and keyword search for JSON knowledge bases read by AI agent skills. This
package runs the prebuilt kbidx $version binary for your platform (installed with one of its
optional dependencies, @kbidx/<os>-<cpu>): no Rust toolchain needed.

    npx kbidx init          # in your knowledge repository
    npx kbidx search "..."

Documentation: the kbidx repository's README.
TEXT

# The platform package.
dir="$out/$platform"
mkdir -p "$dir/bin"
cp "$binary" "$dir/bin/$exe"
chmod 755 "$dir/bin/$exe"
cp "$root/LICENSE" "$dir/LICENSE"
cp "$root/dict/COPYING.mecab-ipadic" "$dir/COPYING.mecab-ipadic"
libc=""
[ "$os" = linux ] && libc=',
  "libc": ["glibc"]'
cat >"$dir/package.json" <<JSON
{
  "name": "@kbidx/$platform",
  "version": "$version",
  "description": "The kbidx binary for $os $cpu ($target); installed by the kbidx package",
  "license": "MIT AND NAIST-2003",
  "os": ["$os"],
  "cpu": ["$cpu"]$libc,
  "files": ["bin/$exe", "COPYING.mecab-ipadic"],
  "preferUnplugged": true
}
JSON
printf '# @kbidx/%s\n\nThe kbidx %s binary for %s (%s). Install the `kbidx` package, not this one.\n' \
  "$platform" "$version" "$platform" "$target" >"$dir/README.md"

(cd "$out" && npm pack --silent "./kbidx" "./$platform" >/dev/null)
ls "$out"/*.tgz
