#!/usr/bin/env node
// check.mjs — end-to-end check of `kbidx mcp` with the official MCP TypeScript SDK client.
//
//   npm ci --prefix scripts/mcp-client
//   node scripts/mcp-client/check.mjs [KBIDX]      (default: $KBIDX, else target/release/kbidx)
//
// Spawns `kbidx mcp --knowledge knowledge --index index/index.toon` in the repository root
// (the repository's own handbook and its committed index) through StdioClientTransport, then:
// initialize (client.connect), tools/list, search by question and by keywords, read, bad
// arguments (tool errors with isError, not a thrown error), an unknown tool (a JSON-RPC error)
// and a ping afterwards (the server goes on). Prints one line per check; exits 1 on the first
// failure with what was expected and what came, 2 if the server cannot be started.

import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const targetDir = resolve(root, process.env.CARGO_TARGET_DIR ?? "target");
const kbidx = resolve(process.argv[2] ?? process.env.KBIDX ?? join(targetDir, "release", "kbidx"));
if (!existsSync(kbidx)) {
  console.error(`check.mjs: ${kbidx} not found (cargo build --release first, or pass KBIDX)`);
  process.exit(2);
}

class CheckFailed extends Error {}

function check(condition, what, got) {
  if (!condition) {
    throw new CheckFailed(`${what}\n  got: ${JSON.stringify(got, null, 2)?.slice(0, 2000)}`);
  }
}

let passed = 0;
async function step(name, body) {
  await body();
  passed += 1;
  console.log(`ok   ${name}`);
}

const transport = new StdioClientTransport({
  command: kbidx,
  args: ["mcp", "--knowledge", "knowledge", "--index", "index/index.toon"],
  cwd: root,
  env: { ...process.env },
  stderr: "pipe",
});
let serverLog = "";
transport.stderr?.on("data", (chunk) => {
  serverLog += chunk;
});
// The client hands the negotiated version to transports that take it (HTTP ones); this one
// records it.
let negotiated;
transport.setProtocolVersion = (version) => {
  negotiated = version;
};
const client = new Client({ name: "kbidx-check", version: "1.0.0" });

// A hung server must not hang CI.
const timer = setTimeout(() => {
  console.error("FAIL check.mjs: no answer within 60 s");
  process.exit(1);
}, 60_000);

try {
  await step("initialize (client.connect)", async () => {
    await client.connect(transport);
    const info = client.getServerVersion();
    check(info?.name === "kbidx", "serverInfo.name is kbidx", info);
    check(client.getServerCapabilities()?.tools, "the server has the tools capability", client.getServerCapabilities());
    check(typeof client.getInstructions() === "string", "instructions are given", client.getInstructions());
  });

  await step(`protocol version: the SDK's latest (${LATEST_PROTOCOL_VERSION}) agreed`, async () => {
    check(negotiated === LATEST_PROTOCOL_VERSION, `the server answers ${LATEST_PROTOCOL_VERSION}`, negotiated);
    await client.ping();
  });

  let tools;
  await step("tools/list: search and read with input schemas", async () => {
    ({ tools } = await client.listTools());
    const names = tools.map((t) => t.name);
    check(JSON.stringify(names) === JSON.stringify(["search", "read"]), "tools are [search, read]", names);
    const search = tools[0].inputSchema;
    for (const p of ["question", "l1", "l2", "l3", "top", "max_tokens", "max_chars", "with_content"]) {
      check(search.properties?.[p], `search takes ${p}`, search);
    }
    for (const p of ["reference", "references", "max_tokens"]) {
      check(tools[1].inputSchema.properties?.[p], `read takes ${p}`, tools[1].inputSchema);
    }
  });

  let first;
  await step("search by question", async () => {
    const result = await client.callTool({
      name: "search",
      arguments: { question: "索引が古いと言われたらどうする？", top: 5 },
    });
    check(!result.isError, "not an error", result);
    const doc = result.structuredContent;
    check(doc?.results?.length > 0 && doc.results.length <= 5, "1 to 5 results", doc);
    check(doc.version === 4 && doc.total > 0, "the lean document, version 4", doc);
    first = doc.results[0].reference;
    check(first === "troubleshooting.json#stale-index", "the stale-index section first", doc.results[0]);
    check(result.content?.[0]?.type === "text" && result.content[0].text.includes(first), "a text rendering naming it", result.content);
  });

  await step("search by keywords with a token budget (content attached)", async () => {
    const result = await client.callTool({
      name: "search",
      arguments: { l2: ["build"], l3: ["check", "stale"], top: 3, max_tokens: 500 },
    });
    check(!result.isError, "not an error", result);
    const doc = result.structuredContent;
    check(doc.results.length > 0 && typeof doc.results[0].content === "string", "content attached", doc.results[0]);
    check(doc.budget?.max_tokens === 500 && doc.budget.tokens <= 500 && doc.budget.content_tokens > 0, "the whole result within 500 estimated tokens", doc.budget);
    const explained = await client.callTool({
      name: "search",
      arguments: { l2: ["build"], l3: ["check", "stale"], top: 3, explain: true },
    });
    const whole = explained.structuredContent;
    check(whole.keywords.l2[0] === "build" && whole.keywords.l3.length === 2, "explain: the keywords by level", whole.keywords);
    check(Array.isArray(whole.results[0].matched), "explain: what matched", whole.results[0]);
  });

  await step("read a result's reference", async () => {
    const result = await client.callTool({ name: "read", arguments: { reference: first } });
    check(!result.isError, "not an error", result);
    const section = result.structuredContent;
    check(section.reference === first, "the reference", section);
    check(section.content.length > 0 && result.content[0].text === section.content + "\n", "the section's text", result);
    check(typeof section.title === "string" && section.title.includes("Stale index"), "the section's title", section);
    const both = await client.callTool({ name: "read", arguments: { references: [first, "guide/build.json#check"] } });
    check(!both.isError && both.structuredContent.sections?.length === 2, "two sections in one call", both.structuredContent);
  });

  const bad = [
    ["search", {}, "nothing to search for"],
    ["search", { question: "x", top: 0 }, "`top` must be at least 1"],
    ["search", { l3: "check", top: "many" }, "`top` must be a non-negative integer"],
    ["search", { keywords: ["check"] }, 'unknown argument "keywords"'],
    ["read", { reference: "guide/build.json#no-such-section" }, 'no section id or heading slug "no-such-section"'],
    ["read", { reference: "../../etc/passwd#x" }, "refused"],
  ];
  for (const [name, args, expected] of bad) {
    await step(`${name} ${JSON.stringify(args)}: a tool error`, async () => {
      const result = await client.callTool({ name, arguments: args });
      check(result.isError === true, "isError: true", result);
      check(result.content?.[0]?.text?.includes(expected), `a message with ${JSON.stringify(expected)}`, result.content);
    });
  }

  await step("unknown tool: a JSON-RPC error, and the server goes on", async () => {
    let error;
    try {
      await client.callTool({ name: "delete_everything", arguments: {} });
    } catch (e) {
      error = e;
    }
    check(error?.code === -32602, "McpError -32602", { message: error?.message, code: error?.code });
    await client.ping();
    const again = await client.callTool({ name: "search", arguments: { l3: ["check"], top: 1 } });
    check(!again.isError && again.structuredContent.results.length === 1, "a search still answers", again);
  });

  await client.close();
  clearTimeout(timer);
  console.log(`check.mjs: all ${passed} checks passed (${kbidx})`);
} catch (e) {
  clearTimeout(timer);
  console.error(`FAIL ${e instanceof CheckFailed ? e.message : `(exception) ${e.stack ?? e}`}`);
  if (serverLog) {
    console.error(`--- kbidx mcp stderr\n${serverLog}`);
  }
  await client.close().catch(() => {});
  process.exit(1);
}
