// Runs one build of the C benchmark harness (bench.c) and collects its JSON
// lines by type: meta, time, accuracy, skip, error, and any other record type
// (e.g. "iterations") under `other`. A missing binary or a non-zero exit is
// pushed to `failures`; the run goes on.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { createSoftscope } from '../../wasm/api/index.js';
import { settings } from './timing.js';

export function runBenchBinary({ root, label, file, cmd, args, failures, log }) {
  if (!existsSync(file)) {
    failures.push(`${label}: ${path.relative(root, file)} is missing (build it: make bench, or make B=... ${path.relative(root, file)})`);
    log(`${label}: MISSING ${file}`);
    return null;
  }
  const t0 = Date.now();
  log(`${label}: running ${path.relative(root, file)} ...`);
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  const out = { label, meta: null, times: [], accuracy: [], skips: [], errors: [], other: {}, seconds: +secs };
  for (const line of (r.stdout || '').split('\n')) {
    if (!line.startsWith('{')) continue;
    let rec;
    try { rec = JSON.parse(line); } catch { out.errors.push({ message: `unparsable line: ${line}` }); continue; }
    if (rec.type === 'meta') out.meta = rec;
    else if (rec.type === 'time') out.times.push(rec);
    else if (rec.type === 'accuracy') out.accuracy.push(rec);
    else if (rec.type === 'skip') out.skips.push(rec);
    else if (rec.type === 'error') out.errors.push(rec);
    else (out.other[rec.type] ??= []).push(rec);
  }
  if (r.stderr) process.stderr.write(r.stderr);
  if (r.error || r.status !== 0 || r.signal) {
    const why = r.error ? r.error.message : r.signal ? `killed by ${r.signal}` : `exit status ${r.status}`;
    failures.push(`${label}: ${why}${out.errors.length ? ' — ' + out.errors.map((e) => e.message).join('; ') : ''}`);
    log(`${label}: FAILED (${why}) after ${secs} s`);
  } else {
    log(`${label}: ${out.times.length} timings in ${secs} s`);
  }
  return out;
}


// ---- shared by the per-family suites (run-quantizers.js, run-optimizers.js) ----

/** Paths and settings of a suite: B, DIST, BENCH_QUICK=1 or --quick, --sizes n,... */
export function suiteSettings(defaultSizes) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const quick = process.env.BENCH_QUICK === '1' || process.argv.includes('--quick');
  const si = process.argv.indexOf('--sizes');
  return {
    root, quick, st: settings(quick),
    B: path.resolve(root, process.env.B || 'build'),
    DIST: path.resolve(root, process.env.DIST || 'wasm/dist'),
    sizes: si > 0 ? process.argv[si + 1].split(',').map(Number) : defaultSizes,
  };
}

/** Both wasm builds, loaded from DIST. */
export async function wasmBuilds(DIST) {
  return {
    'wasm-simd': await createSoftscope({ wasm: readFileSync(path.join(DIST, 'softscope-simd.wasm')) }),
    'wasm-scalar': await createSoftscope({ wasm: readFileSync(path.join(DIST, 'softscope-scalar.wasm')) }),
  };
}

/** One run of the native C harness for these kernel names: "kernel impl n" -> ns per element. */
export function nativeTimes({ B, sizes, quick }, names) {
  const args = ['--no-naive', '--kernels', names.join(','), '--sizes', sizes.join(',')];
  if (quick) args.push('--quick');
  const r = spawnSync(path.join(B, 'native/bench'), args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`native bench failed (${r.status}): ${r.stderr || r.stdout}`);
  const t = new Map();
  for (const line of r.stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const j = JSON.parse(line);
    if (j.type === 'time') t.set(`${j.kernel} ${j.impl} ${j.n}`, j.ns_per_elem);
  }
  return t;
}

/** A number for a table cell (3 significant-ish digits, "—" when missing). */
export const cell = (v) => (v == null ? '—' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

/** Rows of strings as an aligned table (first column left, the rest right). */
export function alignTable(table) {
  const w = table[0].map((_, c) => Math.max(...table.map((r) => r[c].length)));
  return table.map((r) => r.map((v, c) => (c < 1 ? v.padEnd(w[c]) : v.padStart(w[c]))).join('  ')).join('\n') + '\n';
}

/** Write $B/bench/<file> and say so. */
export function writeSuite({ root, B }, file, obj) {
  const outDir = path.join(B, 'bench');
  mkdirSync(outDir, { recursive: true });
  const outFile = path.join(outDir, file);
  writeFileSync(outFile, JSON.stringify(obj, null, 2) + '\n');
  console.log(`\nwrote ${path.relative(root, outFile)}`);
}
