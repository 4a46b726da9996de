#!/usr/bin/env node
// softscope benchmark orchestrator (`make bench`).
//
// Runs, one after the other so they never compete for the cores:
//   1. $B/native/bench                         native scalar + native SIMD (SIMDe)
//   2. tests/support/run-wasi.js $B/wasm/bench-scalar.wasm   the wasm build without SIMD
//   3. tests/support/run-wasi.js $B/wasm/bench-simd.wasm     the wasm SIMD128 build
//   4. plain JavaScript loops over Float32Arrays, in this process
//   5. the JS package call path (createSoftscope + zero-copy normalizeInto),
//      when wasm/index.js loads
// then prints one table (ns per element, ratios), an accuracy table, the
// targets of the issue (met / not met), and writes $B/bench/softmax.json.
//
// Env / args: B (build dir, default "build"), DIST (wasm/dist), BENCH_QUICK=1
// or --quick, --kernels a,b (BENCH_KERNELS), --sizes n,... (BENCH_SIZES).
// A missed target never fails the run; a crashing binary exits non-zero.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { fillUniform, jsVariants, maxRelErr, refSoftmax64 } from './plain-js.js';
import { formatReport } from './report.js';
import { runBenchBinary } from './harness.js';
import { settings, timeCall } from './timing.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const B = path.resolve(root, process.env.B || 'build');
const DIST = path.resolve(root, process.env.DIST || 'wasm/dist');

const DEFAULT_KERNELS = ['softmax', 'log_softmax', 'online_softmax', 'two_pass_softmax'];
const DEFAULT_SIZES = [128, 1024, 8192, 65536, 1 << 20, 1 << 22];
const ACC_N = 65536;
const SEED = 0x50f75c09e; // = SEED in bench.c

function parseArgs(argv) {
  const o = {
    quick: process.env.BENCH_QUICK === '1',
    kernels: process.env.BENCH_KERNELS ? process.env.BENCH_KERNELS.split(',') : null,
    sizes: process.env.BENCH_SIZES ? process.env.BENCH_SIZES.split(',').map(Number) : null,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') o.quick = true;
    else if (a === '--kernels') o.kernels = argv[++i].split(',');
    else if (a === '--sizes') o.sizes = argv[++i].split(',').map(Number);
    else {
      console.error(`run.js: unknown argument "${a}"\nusage: run.js [--quick] [--kernels a,b] [--sizes n,...]`);
      process.exit(2);
    }
  }
  o.kernels = o.kernels?.filter(Boolean) ?? DEFAULT_KERNELS;
  o.sizes = o.sizes ?? DEFAULT_SIZES;
  if (o.sizes.some((n) => !Number.isInteger(n) || n < 1)) {
    console.error('run.js: --sizes wants positive integers');
    process.exit(2);
  }
  return o;
}

const opts = parseArgs(process.argv.slice(2));
const failures = [];
const log = (s) => process.stderr.write(s + '\n');

// ---- the C harness, three builds --------------------------------------------
const common = ['--kernels', opts.kernels.join(','), '--sizes', opts.sizes.join(',')];
if (opts.quick) common.push('--quick');
const runHarness = (label, file, cmd, args) => runBenchBinary({ root, label, file, cmd, args: [...args, '--label', label, ...common], failures, log });

const node = process.execPath;
const runWasi = path.join(root, 'tests/support/run-wasi.js');
const builds = {};
builds.native = runHarness('native', path.join(B, 'native/bench'), path.join(B, 'native/bench'), []);
const wasmScalar = path.join(B, 'wasm/bench-scalar.wasm');
builds['wasm-scalar'] = runHarness('wasm-scalar', wasmScalar, node, ['--no-warnings', runWasi, wasmScalar]);
const wasmSimd = path.join(B, 'wasm/bench-simd.wasm');
// The SIMD build's scalar impl is the same C as the scalar build: time only SIMD.
builds['wasm-simd'] = runHarness('wasm-simd', wasmSimd, node,
  ['--no-warnings', runWasi, wasmSimd, '--impls', 'simd', '--no-naive']);

// ---- inputs for the in-process runs (identical to the C harness's) ----------
const nmax = Math.max(ACC_N, ...opts.sizes);
const xAll = fillUniform(nmax, SEED, -50, 50);
const yAll = new Float32Array(nmax);
const st = settings(opts.quick);
// The C harness reports x at its worst index: the JS copy of the generator must agree.
for (const b of Object.values(builds))
  for (const a of b?.accuracy ?? [])
    if (Math.fround(a.x_at) !== xAll[a.at]) {
      failures.push(`inputs differ between C (${b.label}) and JS: x[${a.at}] = ${a.x_at} vs ${xAll[a.at]}`);
      break;
    }
const refs = { 0: refSoftmax64(xAll.subarray(0, ACC_N), false), 1: refSoftmax64(xAll.subarray(0, ACC_N), true) };
const isLog = (k) => k === 'log_softmax';

// ---- plain JavaScript ---------------------------------------------------------
function runPlainJs() {
  const out = { label: 'js', times: [], accuracy: [], variants: {} };
  const t0 = Date.now();
  log('js: plain JavaScript loops ...');
  const done = new Map(); // fn -> results per n, shared by rows using the same loop
  for (const k of opts.kernels) {
    const fn = jsVariants[k];
    if (!fn) continue;
    out.variants[k] = fn.name;
    if (!done.has(fn)) {
      const per = new Map();
      for (const n of opts.sizes) {
        const x = xAll.subarray(0, n), y = yAll.subarray(0, n);
        per.set(n, timeCall(() => fn(x, y), n, st));
      }
      const y = new Float32Array(ACC_N);
      fn(xAll.subarray(0, ACC_N), y);
      const acc = maxRelErr(y, refs[isLog(k) ? 1 : 0], isLog(k));
      done.set(fn, { per, acc });
    }
    const { per, acc } = done.get(fn);
    for (const [n, r] of per) out.times.push({ kernel: k, impl: 'js', n, ...r, variant: fn.name });
    out.accuracy.push({ kernel: k, impl: 'js', n: ACC_N, max_rel_err: acc.maxRelErr, at: acc.at });
  }
  out.seconds = (Date.now() - t0) / 1000;
  log(`js: done in ${out.seconds.toFixed(1)} s`);
  return out;
}
const plainJs = runPlainJs();

// ---- the JS package path (optional) -------------------------------------------
async function runJsApi() {
  const out = { label: 'js-api', times: [], accuracy: [], skips: [], impl: null };
  let ss;
  try {
    const mod = await import(pathToFileURL(path.join(root, 'wasm/index.js')).href);
    const wasmFile = path.join(DIST, 'softscope-simd.wasm');
    const o = { impl: 'simd' };
    if (existsSync(wasmFile)) o.wasm = readFileSync(wasmFile);
    ss = await mod.createSoftscope(o);
    out.impl = ss.impl;
  } catch (e) {
    out.unavailable = `wasm/index.js not usable: ${e.message}`;
    log(`js-api: skipped (${out.unavailable})`);
    return out;
  }
  const t0 = Date.now();
  log(`js-api: createSoftscope (${ss.impl}) + normalizeInto ...`);
  for (const k of opts.kernels) {
    try { ss.kernel(k); } catch { out.skips.push({ kernel: k, reason: 'not in the JS registry' }); continue; }
    try {
      for (const n of opts.sizes) {
        const xb = ss.alloc(n), yb = ss.alloc(n);
        xb.array.set(xAll.subarray(0, n));
        out.times.push({ kernel: k, impl: 'js-api', n, ...timeCall(() => ss.normalizeInto(k, xb, yb), n, st) });
        if (n === ACC_N) {
          const acc = maxRelErr(yb.array, refs[isLog(k) ? 1 : 0], isLog(k));
          out.accuracy.push({ kernel: k, impl: 'js-api', n, max_rel_err: acc.maxRelErr, at: acc.at });
        }
        xb.free();
        yb.free();
      }
    } catch (e) {
      out.skips.push({ kernel: k, reason: `error: ${e.message}` });
      log(`js-api: ${k}: ${e.message}`);
    }
  }
  out.seconds = (Date.now() - t0) / 1000;
  log(`js-api: done in ${out.seconds.toFixed(1)} s`);
  return out;
}
const jsApi = await runJsApi();

// ---- merge, report, JSON ------------------------------------------------------
function machine() {
  let cpu = os.cpus()[0]?.model ?? 'unknown';
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) cpu = m[1].trim();
  } catch { /* not Linux */ }
  const cmd = (c, a) => {
    const r = spawnSync(c, a, { encoding: 'utf8' });
    return r.status === 0 ? r.stdout.trim().split('\n')[0] : null;
  };
  return {
    date: new Date().toISOString(),
    node: process.version,
    v8: process.versions.v8,
    cpu,
    cores: os.cpus().length,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    gcc: cmd('gcc', ['-dumpfullversion']),
    git: cmd('git', ['-C', root, 'rev-parse', '--short', 'HEAD']),
  };
}

const result = {
  machine: machine(),
  settings: { quick: opts.quick, kernels: opts.kernels, sizes: opts.sizes, ...st,
    input: 'logits uniform in [-50, 50), splitmix64 seed 0x50f75c09e (same in C and JS)',
    accuracy: `max relative error vs a float64 softmax at n = ${ACC_N} over outputs >= 1e-30 ` +
      '(log_softmax: max |error of log p|, i.e. the relative error of p)',
    figure: 'median over trials of ns per call / n' },
  builds, js: plainJs, jsApi, failures,
};
const { text, rows, targets } = formatReport(result);
result.rows = rows;
result.targets = targets;
process.stdout.write(text);

const outDir = path.join(B, 'bench');
mkdirSync(outDir, { recursive: true });
const outFile = path.join(outDir, 'softmax.json');
writeFileSync(outFile, JSON.stringify(result, null, 2) + '\n');
console.log(`\nwrote ${path.relative(root, outFile)}`);
if (failures.length) {
  console.error(`\nbench: ${failures.length} failure(s):\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
