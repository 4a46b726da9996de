#!/usr/bin/env node
// Writes the docs site's sources: docs/ (hand-written pages, the VitePress
// config and theme) copied as they are, plus the pages generated from the
// registry JSON, the views, the committed benchmark run, the CLI's --help,
// wasm/api/index.d.ts and core/include/softscope.h (scripts/docs/site.js).
// `make docs` runs it, then `vitepress build` on the output folder.
//
// Usage: node scripts/gen-docs.js --registry build/registry.json --out build/docs-src
//          [--bench tests/bench/results/bench.json]
import { readFileSync, writeFileSync, mkdirSync, rmSync, readdirSync, statSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { VIEWS } from '../wasm/views/index.js';
import { buildSite } from './docs/site.js';
import { headerComment } from './docs/views.js';
import { cliCommands, typedEntries } from './docs/reference.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const read = (p) => readFileSync(path.join(ROOT, p), 'utf8');

/** Every file under dir (relative paths), skipping VitePress's own output. */
function walk(dir, rel = '') {
  const out = [];
  for (const name of readdirSync(path.join(dir, rel))) {
    const r = rel ? `${rel}/${name}` : name;
    if (r === '.vitepress/cache' || r === '.vitepress/dist' || r === 'public/softscope') continue;
    if (statSync(path.join(dir, r)).isDirectory()) out.push(...walk(dir, r));
    else out.push(r);
  }
  return out;
}

/** docs/'s files: text pages as strings, the rest (images) as buffers. */
export function readPages(dir = path.join(ROOT, 'docs')) {
  const pages = new Map();
  for (const r of walk(dir)) {
    const buf = readFileSync(path.join(dir, r));
    pages.set(r, /\.(md|mjs|js|css|json)$/.test(r) ? buf.toString('utf8') : buf);
  }
  return pages;
}

/** The package's typed entry points with their .d.ts text (typedEntries). */
export function typeSources() {
  return typedEntries(JSON.parse(read('package.json'))).map((m) => ({ ...m, text: read(m.file) }));
}

/** The views with the header comments of their schemas. */
export function viewSources() {
  return VIEWS.map((view) => ({ view, description: headerComment(read(`wasm/views/${view.id}/schema.js`)) }));
}

/** The CLI's --help texts, as the installed command prints them. */
export async function cliHelp() {
  const { runInProcess } = await import('../wasm/cli/main.js');
  const overview = (await runInProcess(['--help'])).stdout;
  const commands = [];
  for (const c of cliCommands(overview)) commands.push({ ...c, help: (await runInProcess([c.name, '--help'])).stdout });
  return { overview, commands };
}

export function writeSite(out, { files, sidebar }) {
  rmSync(out, { recursive: true, force: true });
  for (const [rel, text] of files) {
    mkdirSync(path.dirname(path.join(out, rel)), { recursive: true });
    writeFileSync(path.join(out, rel), text);
  }
  mkdirSync(path.join(out, '.vitepress'), { recursive: true });
  writeFileSync(path.join(out, '.vitepress/sidebar.json'), `${JSON.stringify(sidebar, null, 1)}\n`);
}

async function main(argv) {
  const opt = {};
  for (let i = 0; i < argv.length; i += 2) opt[argv[i].replace(/^--/, '')] = argv[i + 1];
  if (!opt.registry || !opt.out) {
    console.error('usage: node scripts/gen-docs.js --registry build/registry.json --out build/docs-src [--bench bench.json] [--results view,...]');
    return 2;
  }
  const benchFile = opt.bench ?? path.join(ROOT, 'tests/bench/results/bench.json');
  // the Chromium run (make bench-browser) kept next to it
  const browserFile = path.join(path.dirname(benchFile), 'bench-browser.json');
  const site = buildSite({
    registry: JSON.parse(readFileSync(opt.registry, 'utf8')),
    views: viewSources(),
    bench: existsSync(benchFile) ? JSON.parse(readFileSync(benchFile, 'utf8')) : null,
    benchBrowser: existsSync(browserFile) ? JSON.parse(readFileSync(browserFile, 'utf8')) : null,
    cli: await cliHelp(),
    dts: typeSources(),
    header: read('core/include/softscope.h'),
    pages: readPages(),
    // views whose page widget draws a results file (`softscope train --json`, written by make docs into
    // public/results/<view>.json) instead of an empty figure waiting for Train
    results: Object.fromEntries((opt.results ?? '').split(',').filter(Boolean).map((id) => [id, `../results/${id}.json`])),
  });
  writeSite(opt.out, site);
  const md = [...site.files.keys()].filter((f) => f.endsWith('.md')).length;
  console.log(`docs: ${md} pages in ${path.relative(process.cwd(), opt.out) || '.'}`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
