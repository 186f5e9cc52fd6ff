#!/usr/bin/env node
// bench.mjs — latency of `kbidx mcp` search calls, measured with the official MCP TypeScript SDK client.
//
//   node scripts/mcp-client/bench.mjs --index FILE --knowledge DIR [--questions FILE.jsonl]
//        [--calls 30] [--max-tokens N] [--kbidx PATH]
//
// Starts `kbidx mcp --index FILE --knowledge DIR` (default binary: $KBIDX, else
// target/release/kbidx), connects (spawn, index load, initialize), then calls `search` with the
// first 1 + --calls questions of the question set (default tests/fixtures/eval/dev/fulltext.jsonl),
// each question once, one call at a time. Prints the connect time, the first call, and the
// median / 90th percentile / max of the other calls: as the client sees them (request written to
// response parsed, SDK included) and as the server logs them on stderr (`search in X ms`).

import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const { values: opts } = parseArgs({
  options: {
    index: { type: "string" },
    knowledge: { type: "string" },
    questions: { type: "string", default: join(root, "tests/fixtures/eval/dev/fulltext.jsonl") },
    calls: { type: "string", default: "30" },
    "max-tokens": { type: "string" },
    kbidx: {
      type: "string",
      default: process.env.KBIDX ?? join(resolve(root, process.env.CARGO_TARGET_DIR ?? "target"), "release", "kbidx"),
    },
  },
});
if (!opts.index || !opts.knowledge) {
  console.error("usage: bench.mjs --index FILE --knowledge DIR [--questions FILE.jsonl] [--calls N] [--max-tokens N]");
  process.exit(2);
}
const calls = Number(opts.calls);
const questions = readFileSync(opts.questions, "utf8")
  .split("\n")
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l).query);
if (questions.length < calls + 1) {
  console.error(`bench.mjs: ${opts.questions} has ${questions.length} questions, ${calls + 1} needed`);
  process.exit(2);
}

const transport = new StdioClientTransport({
  command: resolve(opts.kbidx),
  args: ["mcp", "--index", resolve(opts.index), "--knowledge", resolve(opts.knowledge)],
  env: { ...process.env },
  stderr: "pipe",
});
let log = "";
transport.stderr?.on("data", (chunk) => {
  log += chunk;
});
const client = new Client({ name: "kbidx-bench", version: "1.0.0" });

const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;
let start = process.hrtime.bigint();
await client.connect(transport);
const connect = ms(start);

const client_ms = [];
for (const question of questions.slice(0, calls + 1)) {
  const args = { question };
  if (opts["max-tokens"]) args.max_tokens = Number(opts["max-tokens"]);
  start = process.hrtime.bigint();
  const result = await client.callTool({ name: "search", arguments: args });
  client_ms.push(ms(start));
  if (result.isError) {
    console.error(`bench.mjs: ${question}: ${result.content[0].text}`);
    process.exit(1);
  }
}
await client.close();

const server_ms = [...log.matchAll(/search in ([0-9.]+) ms/g)].map((m) => Number(m[1]));
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)];
  return `median ${at(0.5).toFixed(2)} ms, p90 ${at(0.9).toFixed(2)} ms, max ${s[s.length - 1].toFixed(2)} ms`;
};
const ready = log.match(/ready in ([0-9.]+) ms/);
console.log(`connect (spawn, load, initialize): ${connect.toFixed(1)} ms (server: loaded in ${ready?.[1] ?? "?"} ms)`);
console.log(`first call:  client ${client_ms[0].toFixed(2)} ms, server ${server_ms[0]?.toFixed(2)} ms`);
console.log(`next ${calls} calls, client: ${stats(client_ms.slice(1))}`);
console.log(`next ${calls} calls, server: ${stats(server_ms.slice(1))}`);
