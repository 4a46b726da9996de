#!/usr/bin/env node
// Rewrites the benchmark sections of README.md from the JSON of a `make
// bench` run ($B/bench/bench.json): the machine line and the one headline
// table (softmax against its peers). The full tables are the docs site's
// benchmarks page (docs/benchmarks.md), which `make docs` fills from the same
// JSON with the same code (scripts/bench/tables.js).
//
// And the side-by-side section: Node (bench.json) and Chromium (the
// bench-browser.json of `make bench-browser`, by default the one next to
// bench.json) on the same tables.
//
// Usage: node tests/bench/readme-tables.js [bench.json] [bench-browser.json] [--check]
//   --check: exit 1 if README.md is not what the JSON gives (no write).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { benchSections, browserSections, fillSections } from '../../scripts/bench/tables.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const check = args.includes('--check');
const files = args.filter((a) => !a.startsWith('--'));
const file = files[0] ?? path.join(root, process.env.B || 'build', 'bench', 'bench.json');
const res = JSON.parse(readFileSync(file, 'utf8'));
const browserFile = files[1] ?? path.join(path.dirname(file), 'bench-browser.json');
const browser = existsSync(browserFile) ? JSON.parse(readFileSync(browserFile, 'utf8')) : null;

const readmePath = path.join(root, 'README.md');
const before = readFileSync(readmePath, 'utf8');
const after = fillSections(before, { ...benchSections(res), ...(browser ? browserSections(res, browser) : {}) });
if (check) {
  if (after !== before) {
    console.error('README.md benchmark sections differ from the JSON (run node tests/bench/readme-tables.js)');
    process.exit(1);
  }
} else if (after !== before) {
  writeFileSync(readmePath, after);
  console.log(`README.md: benchmark sections rewritten from ${path.relative(root, file)}`);
} else {
  console.log('README.md: benchmark sections already up to date');
}
