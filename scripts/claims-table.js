#!/usr/bin/env node
// Writes the README's claims table from docs/claims.json (scripts/claims.js):
// one row per claim -- its claim and papers, each test's paired difference
// (mean and 95 % interval over the seeds) with the rule's result, the
// seeds, and the verdict the rule gave. Nothing in the table is typed by
// hand; `--check` exits 1 when the README differs from what the JSON gives.
//
// Usage: node scripts/claims-table.js [docs/claims.json] [--check]
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OPEN = '<!-- claims:table -->', CLOSE = '<!-- /claims:table -->';

const fmt = (v) => (v === null || v === undefined ? '–' : Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toPrecision(2));
const signed = (v) => (v === null ? '–' : `${v > 0 ? '+' : ''}${fmt(v)}`);
const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\n/g, ' ');

function seedsOf(c) {
  const s = c.seeds;
  return s.length === 1 ? `seed ${s[0]}` : s.every((x, i) => i === 0 || x === s[i - 1] + 1) ? `seeds ${s[0]}–${s[s.length - 1]}` : `${s.length} seeds`;
}

function testText(t) {
  const d = t.diff;
  const iv = d.lo === null ? '' : ` [${fmt(d.lo)}, ${fmt(d.hi)}]`;
  const against = t.b === undefined ? ` (vs ${t.value})` : '';
  return `${t.what}: ${signed(d.mean)}${iv}${against} — ${t.result}`;
}

/** The table's markdown for the claims of doc. */
export function claimsTable(doc) {
  const rows = doc.claims.map((c) => `| ${cell(c.claim)} (${cell(c.ref ?? c.id)}) | ${cell(c.tests.map(testText).join('; '))} | ${seedsOf(c)}${c.build && c.build !== doc.build ? `, ${c.build} build` : ''} | **${c.verdict}** |`);
  return [
    `Rule, fixed before the runs and applied by \`scripts/claims.js\`: ${doc.rule}. Build: ${doc.build}, ${doc.date}.`,
    '',
    '| claim (paper) | tests: paired difference, mean [95 % interval] — result | seeds | verdict |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}

export function fillClaims(readme, doc) {
  const a = readme.indexOf(OPEN), b = readme.indexOf(CLOSE);
  if (a < 0 || b < a) throw new Error(`README.md has no ${OPEN} ... ${CLOSE} section`);
  return `${readme.slice(0, a + OPEN.length)}\n${claimsTable(doc)}\n${readme.slice(b)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2), check = args.includes('--check');
  const file = args.find((a) => !a.startsWith('--')) ?? path.join(root, 'docs/claims.json');
  const readmePath = path.join(root, 'README.md');
  const before = readFileSync(readmePath, 'utf8');
  const after = fillClaims(before, JSON.parse(readFileSync(file, 'utf8')));
  if (check && after !== before) {
    console.error('README.md claims table differs from docs/claims.json (run node scripts/claims-table.js)');
    process.exitCode = 1;
  } else if (!check && after !== before) {
    writeFileSync(readmePath, after);
    console.log('README.md: claims table rewritten from docs/claims.json');
  }
}
