#!/usr/bin/env node
// from-config.mjs — start kbidx's MCP server as an MCP client would, from the client
// configuration `kbidx init` wrote, and call `search` with the official MCP TypeScript SDK.
//
//   node scripts/mcp-client/from-config.mjs REPO QUESTION
//
// Reads REPO/.mcp.json (Claude Code: mcpServers.kbidx) and REPO/.vscode/mcp.json (VS Code:
// servers.kbidx, `${workspaceFolder}` replaced by REPO), starts each entry's command with its
// args in REPO (as both clients start project servers), and checks: initialize, tools/list
// has search and read, `search` for QUESTION returns at least one result, `read` of the first
// returns its text. Prints one line per check; exit 1 on a failed check, 2 on bad usage.

import { readFileSync } from "node:fs";
import { resolve } from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [repoArg, question] = process.argv.slice(2);
if (!repoArg || !question) {
  console.error("usage: from-config.mjs REPO QUESTION");
  process.exit(2);
}
const repo = resolve(repoArg);

function fail(message, got) {
  console.error(`FAIL ${message}${got === undefined ? "" : `\n  got: ${JSON.stringify(got)?.slice(0, 2000)}`}`);
  process.exit(1);
}

const timer = setTimeout(() => fail("no answer within 60 s"), 60_000);

const configs = [
  { file: ".mcp.json", entry: (doc) => doc.mcpServers?.kbidx },
  { file: ".vscode/mcp.json", entry: (doc) => doc.servers?.kbidx },
];
for (const { file, entry } of configs) {
  const server = entry(JSON.parse(readFileSync(resolve(repo, file), "utf8")));
  if (!server?.command) fail(`${file}: no kbidx server entry`, server);
  const args = (server.args ?? []).map((a) => a.replaceAll("${workspaceFolder}", repo));
  const transport = new StdioClientTransport({
    command: server.command,
    args,
    cwd: repo,
    env: { ...process.env },
    stderr: "pipe",
  });
  let log = "";
  transport.stderr?.on("data", (chunk) => {
    log += chunk;
  });
  const client = new Client({ name: "kbidx-from-config", version: "1.0.0" });
  try {
    await client.connect(transport);
    if (client.getServerVersion()?.name !== "kbidx") fail(`${file}: serverInfo.name is kbidx`, client.getServerVersion());
    const tools = (await client.listTools()).tools.map((t) => t.name);
    if (!tools.includes("search") || !tools.includes("read")) fail(`${file}: tools search and read`, tools);
    const found = await client.callTool({ name: "search", arguments: { question, top: 3 } });
    const results = found.structuredContent?.results ?? [];
    if (found.isError || results.length === 0) fail(`${file}: search "${question}" finds a section`, found);
    const section = await client.callTool({ name: "read", arguments: { reference: results[0].reference } });
    if (section.isError || !section.structuredContent?.content) fail(`${file}: read ${results[0].reference}`, section);
    console.log(`ok   ${file}: ${server.command} ${args.join(" ")}: search "${question}" -> ${results[0].reference}; read it`);
  } catch (e) {
    fail(`${file}: ${e.message}\n${log}`);
  } finally {
    await client.close();
  }
}
clearTimeout(timer);
