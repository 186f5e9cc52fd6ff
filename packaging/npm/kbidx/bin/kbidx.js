#!/usr/bin/env node
// The `kbidx` command of the npm package: runs the prebuilt binary that npm installed with
// the optional dependency for this platform (@kbidx/<os>-<cpu>, the esbuild/biome pattern).
// Arguments, standard input and output, and the exit code pass through unchanged, so
// `npx kbidx mcp` serves MCP over stdio like the binary itself.
"use strict";

const { spawnSync } = require("node:child_process");

const PACKAGES = {
  "linux x64": "@kbidx/linux-x64",
  "linux arm64": "@kbidx/linux-arm64",
  "darwin x64": "@kbidx/darwin-x64",
  "darwin arm64": "@kbidx/darwin-arm64",
  "win32 x64": "@kbidx/win32-x64",
};

const platform = `${process.platform} ${process.arch}`;
const pkg = PACKAGES[platform];
if (!pkg) {
  console.error(
    `kbidx: no prebuilt binary for ${platform}; build it with a Rust toolchain: cargo install kbidx`,
  );
  process.exit(2);
}
const exe = process.platform === "win32" ? "kbidx.exe" : "kbidx";
let binary;
try {
  binary = require.resolve(`${pkg}/bin/${exe}`);
} catch {
  console.error(
    `kbidx: ${pkg} is not installed (it is an optional dependency of kbidx: ` +
      `reinstall kbidx without --omit=optional / --no-optional)`,
  );
  process.exit(2);
}
const run = spawnSync(binary, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
if (run.error) {
  console.error(`kbidx: cannot run ${binary}: ${run.error.message}`);
  process.exit(2);
}
if (run.signal) {
  process.kill(process.pid, run.signal);
}
process.exit(run.status ?? 2);
