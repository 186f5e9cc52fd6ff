#!/usr/bin/env node
// verify-toon.mjs — check an index file against an independent oracle.
//
//   node scripts/verify-toon.mjs [--name NAME] [--program FILE] [--jobs N] KNOWLEDGE_DIR INDEX_FILE
//
// 1. Decodes INDEX_FILE with the official TypeScript TOON decoder
//    (@toon-format/toon, pinned in scripts/package.json), `decode(text, {strict: true})`,
//    and checks its shape: `{sections: [{reference, title, hints}, ...]}`, all strings.
// 2. Runs the `jq` CLI with the extraction program (default: src/extract.jq) once per
//    `*.json` file under KNOWLEDGE_DIR, as `jq -c --arg path REL -f PROGRAM FILE`,
//    files sorted by their `/`-separated relative path in byte order; `{warning}`
//    objects are skipped.
// 3. Requires both record lists to be identical (count, order, every string).
//
// Prints one line, e.g. "nabledge-6-small: 147 records, decoder == jq".
// Exit codes: 0 match, 1 mismatch, 2 error (bad usage, decoder or jq failure).
//
// Setup: `npm ci --prefix scripts` (installs the pinned decoder into scripts/node_modules).

import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, realpathSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const FIELDS = ['reference', 'title', 'hints'];

function fail(code, message) {
  process.stderr.write(`verify-toon: ${message}\n`);
  process.exit(code);
}

function parseArgs(argv) {
  const opts = { name: null, program: path.join(here, '..', 'src', 'extract.jq'), jobs: null, positional: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) fail(2, `${a} needs a value`);
      return argv[++i];
    };
    if (a === '--name') opts.name = value();
    else if (a === '--program') opts.program = value();
    else if (a === '--jobs') opts.jobs = Number.parseInt(value(), 10);
    else if (a === '-h' || a === '--help') {
      process.stdout.write('usage: verify-toon.mjs [--name NAME] [--program FILE] [--jobs N] KNOWLEDGE_DIR INDEX_FILE\n');
      process.exit(0);
    } else if (a.startsWith('-')) fail(2, `unknown option ${a}`);
    else opts.positional.push(a);
  }
  if (opts.positional.length !== 2) fail(2, 'usage: verify-toon.mjs [--name NAME] [--program FILE] [--jobs N] KNOWLEDGE_DIR INDEX_FILE');
  if (!Number.isInteger(opts.jobs) || opts.jobs < 1) {
    opts.jobs = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  }
  return opts;
}

// All `*.json` files under `root` (following symbolic links, never around a loop),
// as `/`-separated relative paths sorted in byte order (like Rust's String ordering).
function listJson(root) {
  const found = [];
  const seen = new Set();
  const walk = (dir, rel) => {
    const real = realpathSync(dir);
    if (seen.has(real)) return;
    seen.add(real);
    for (const name of readdirSync(dir)) {
      const full = path.join(dir, name);
      const relative = rel === '' ? name : `${rel}/${name}`;
      const st = statSync(full);
      if (st.isDirectory()) walk(full, relative);
      else if (st.isFile() && name.endsWith('.json')) found.push(relative);
    }
    seen.delete(real);
  };
  walk(root, '');
  return found.sort((a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')));
}

function runJq(program, relative, file) {
  return new Promise((resolve, reject) => {
    const child = spawn('jq', ['-c', '--arg', 'path', relative, '-f', program, file], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = [];
    const err = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    child.on('error', (e) => reject(new Error(`cannot run jq: ${e.message}`)));
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new Error(`jq failed on ${relative} (exit ${code}): ${Buffer.concat(err).toString().trim()}`));
        return;
      }
      const records = [];
      for (const line of Buffer.concat(out).toString('utf8').split('\n')) {
        if (line === '') continue;
        const value = JSON.parse(line);
        if (value !== null && typeof value === 'object' && !Array.isArray(value) && 'warning' in value) continue;
        // kbidx joins an array of hints with single spaces (see src/extract.jq).
        if (value !== null && typeof value === 'object' && Array.isArray(value.hints)) value.hints = value.hints.join(' ');
        if (value !== null && typeof value === 'object' && value.hints === null) value.hints = '';
        records.push(value);
      }
      resolve(records);
    });
  });
}

// Runs jq over `files` with at most `jobs` processes at once; results keep file order.
async function extractAll(program, root, files, jobs) {
  const results = new Array(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      results[i] = await runJq(program, files[i], path.join(root, files[i]));
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, files.length) }, worker));
  return results.flat();
}

function decodeIndex(decode, file) {
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    fail(2, `${file}: cannot read: ${e.message}`);
  }
  let value;
  try {
    value = decode(text, { strict: true });
  } catch (e) {
    const where = e.line ? `:${e.line}` : '';
    fail(1, `${file}${where}: the official decoder rejects the index: ${e.message}`);
  }
  const problems = [];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    fail(1, `${file}: decoded root is not an object`);
  }
  const keys = Object.keys(value);
  if (keys.length !== 1 || keys[0] !== 'sections' || !Array.isArray(value.sections)) {
    fail(1, `${file}: decoded root must be {sections: [...]}, got keys ${JSON.stringify(keys)}`);
  }
  value.sections.forEach((row, i) => {
    const got = row !== null && typeof row === 'object' ? Object.keys(row) : [];
    // kbidx adds a derived `terms` column (not produced by jq) unless built with --terms 0.
    if (JSON.stringify(got) !== JSON.stringify(FIELDS) && JSON.stringify(got) !== JSON.stringify([...FIELDS, 'terms'])) {
      problems.push(`row ${i + 1}: keys ${JSON.stringify(got)}, expected ${JSON.stringify(FIELDS)}`);
      return;
    }
    for (const f of FIELDS) {
      if (typeof row[f] !== 'string') {
        problems.push(`row ${i + 1}: ${f} decodes to ${typeof row[f]} ${JSON.stringify(row[f])}, not a string (missing quotes?)`);
      }
    }
  });
  if (problems.length > 0) {
    fail(1, `${file}: decoded rows have the wrong shape:\n  ${problems.slice(0, 10).join('\n  ')}`);
  }
  return value.sections;
}

function compare(decoded, expected) {
  const diffs = [];
  if (decoded.length !== expected.length) {
    diffs.push(`count: decoder ${decoded.length}, jq ${expected.length}`);
  }
  const n = Math.min(decoded.length, expected.length);
  for (let i = 0; i < n && diffs.length < 10; i++) {
    for (const f of FIELDS) {
      if (decoded[i][f] !== expected[i][f]) {
        diffs.push(`row ${i + 1} ${f}: decoder ${JSON.stringify(decoded[i][f])}, jq ${JSON.stringify(expected[i][f])}`);
      }
    }
  }
  return diffs;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const [root, indexFile] = opts.positional;
  const name = opts.name ?? path.basename(path.resolve(root));

  let decode;
  try {
    ({ decode } = await import('@toon-format/toon'));
  } catch (e) {
    fail(2, `cannot load @toon-format/toon (run \`npm ci --prefix scripts\`): ${e.message}`);
  }

  try {
    if (!statSync(root).isDirectory()) fail(2, `${root}: not a directory`);
  } catch (e) {
    fail(2, `${root}: ${e.message}`);
  }
  const decoded = decodeIndex(decode, indexFile);
  const files = listJson(root);
  let expected;
  try {
    expected = await extractAll(opts.program, root, files, opts.jobs);
  } catch (e) {
    fail(2, e.message);
  }
  for (const [i, r] of expected.entries()) {
    if (!FIELDS.every((f) => typeof r?.[f] === 'string')) {
      fail(2, `jq record ${i + 1} is not {reference,title,hints} strings: ${JSON.stringify(r)}`);
    }
  }

  const diffs = compare(decoded, expected);
  if (diffs.length > 0) {
    process.stdout.write(`${name}: MISMATCH (decoder ${decoded.length} records, jq ${expected.length} from ${files.length} files)\n`);
    for (const d of diffs) process.stdout.write(`  ${d}\n`);
    process.exit(1);
  }
  process.stdout.write(`${name}: ${decoded.length} records, decoder == jq\n`);
}

main().catch((e) => fail(2, e.stack ?? String(e)));
