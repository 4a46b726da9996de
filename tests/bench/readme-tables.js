#!/usr/bin/env node
// Rewrites the benchmark sections of README.md from the JSON of a `make
// bench` run ($B/bench/bench.json), so no figure in the README is typed by
// hand. A section is the text between
//   <!-- bench:NAME -->  and  <!-- /bench:NAME -->
// for NAME in: machine, softmax, targets, and one per family (normalizer,
// sampler, quantizer, optimizer, measure, loss, attention).
//
// Usage: node tests/bench/readme-tables.js [bench.json] [--check]
//   --check: exit 1 if README.md is not what the JSON gives (no write).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { bestPeer, fmt, fmtE, fmtX, inUnit, orderIds, pow2, ratio } from './report.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const check = args.includes('--check');
const file = args.find((a) => !a.startsWith('--')) ?? path.join(root, process.env.B || 'build', 'bench', 'bench.json');
const res = JSON.parse(readFileSync(file, 'utf8'));

const md = (rows) => [`| ${rows[0].join(' | ')} |`, `|${rows[0].map(() => '---').join('|')}|`, ...rows.slice(1).map((r) => `| ${r.join(' | ')} |`)].join('\n');
const row = (fam, kernel, n) => res.families[fam]?.rows.find((r) => r.kernel === kernel && r.n === n);

const NAMES = {
  relaxed: 'softscope relaxed', simd: 'softscope SIMD', scalar: 'softscope scalar', api: '`ss.normalize` (copies)', js: 'plain JS',
  tfjs: 'tfjs-wasm', 'tfjs+dataSync': 'tfjs-wasm + `dataSync`', 'ort-web': 'onnxruntime-web', 'ort-node': 'onnxruntime-node',
  transformers: 'transformers.js', 'memcpy wasm': 'wasm `memory.copy`', 'memcpy native': 'native memcpy',
  'memcpy new array': 'new array + memcpy (`x.slice()`)',
  'relaxed sort': 'relaxed, sort method', 'simd sort': 'SIMD, sort method',
};

function machine() {
  const m = res.machine, s = res.settings;
  return `Measured ${m.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, shared), Node ${m.node}, git ${m.git}; ` +
    `${s.quick ? 'QUICK run; ' : ''}medians of ${s.rounds} interleaved rounds (normalizers: ${res.families.normalizer?.rounds ?? s.rounds}) of ~${s.roundMs} ms per candidate, ${s.clock} clock` +
    `${res.merged ? ` (families ${res.merged.rerun.join(', ')} rerun into the run of ${res.merged.from.slice(0, 16)})` : ''}. ` +
    `Peers: ${Object.entries(s.peers).map(([k, v]) => `${k} ${v}`).join('; ')}.`;
}

// The headline: softmax at the target sizes, every candidate, with bytes/s.
function softmax() {
  const fam = res.families.normalizer;
  const ns = [...new Set(fam.rows.filter((r) => r.kernel === 'softmax').map((r) => r.n))];
  const ids = orderIds(new Set(ns.flatMap((n) => Object.keys(row('normalizer', 'softmax', n).results))));
  const out = [['n', ...ids.map((id) => NAMES[id] ?? id), 'relaxed vs tfjs', 'max rel err: softscope / tfjs / ort-web / ort-node']];
  for (const n of ns) {
    const r = row('normalizer', 'softmax', n).results, t = (id) => r[id]?.ns_per_elem;
    out.push([pow2(n), ...ids.map((id) => (r[id] ? `${fmt(t(id))} (${r[id].gbps.toFixed(1)} GB/s)` : '—')), fmtX(ratio(t('tfjs'), t('relaxed'))),
      ['relaxed', 'tfjs', 'ort-web', 'ort-node'].map((id) => fmtE(r[id]?.max_rel_err)).join(' / ')]);
  }
  return `ns per element (GB/s: 8 bytes per element, x read and y written, as memcpy of n floats)\n\n${md(out)}`;
}

function family(name) {
  const fam = res.families[name];
  if (!fam) return '(not in this run)';
  const ids = orderIds(new Set(fam.rows.flatMap((r) => Object.keys(r.results)))).filter((id) => !id.startsWith('memcpy'));
  const hasErr = fam.rows.some((r) => r.results.relaxed?.max_rel_err != null);
  const out = [['kernel', 'n', ...ids.map((id) => NAMES[id] ?? id), 'relaxed / SIMD', 'SIMD / scalar', 'vs plain JS', 'vs fastest peer',
    ...(hasErr ? ['max rel err'] : [])]];
  for (const r of fam.rows) {
    if (r.error) continue;
    const t = (id) => r.results[id]?.ns_per_elem ?? null, lead = t('relaxed') ?? t('simd'), best = bestPeer(r);
    out.push([r.kernel, pow2(r.n), ...ids.map((id) => fmt(inUnit(fam.unit, t(id), r.n))), fmtX(ratio(t('simd'), t('relaxed'))),
      fmtX(ratio(t('scalar'), t('simd'))), fmtX(ratio(t('js'), lead)), best ? `${fmtX(ratio(best.ns, lead))} (${best.id})` : '—',
      ...(hasErr ? [fmtE(r.results.relaxed?.max_rel_err ?? r.results.simd?.max_rel_err)] : [])]);
  }
  return `${fam.unit}; input: ${fam.input}\n\n${md(out)}`;
}

function targets() {
  return res.targets.map((tg) => {
    const vals = tg.values.map((v) => `${pow2(v.at)}: ${tg.want.includes('e-') ? fmtE(v.value) : fmtX(v.value)}`).join(', ');
    return `- **${tg.status}** — ${tg.name} ${tg.want}: ${vals}${tg.note ? ` (${tg.note})` : ''}`;
  }).join('\n');
}

const SECTIONS = { machine, softmax, targets, ...Object.fromEntries(Object.keys(res.families).map((f) => [f, () => family(f)])) };

const readmePath = path.join(root, 'README.md');
const before = readFileSync(readmePath, 'utf8');
let after = before;
for (const [name, make] of Object.entries(SECTIONS)) {
  const re = new RegExp(`(<!-- bench:${name} -->\\n)[\\s\\S]*?(<!-- /bench:${name} -->)`);
  if (re.test(after)) after = after.replace(re, (_, a, b) => `${a}${make()}\n${b}`);
}
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
