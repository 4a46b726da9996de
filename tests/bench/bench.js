#!/usr/bin/env node
// softscope benchmark (`make bench`): one registry-driven harness. For every
// family of the registry (normalizer, sampler, quantizer, optimizer,
// measure, loss, attention) every kernel runs in softscope's three wasm
// builds -- relaxed SIMD, SIMD128, scalar -- side by side with the peers a
// user would otherwise install (tfjs-backend-wasm, onnxruntime-web and
// -node, transformers.js; peers.js), plain JavaScript and, for softmax, the
// memcpy lines, all in this one process, in interleaved rounds
// (timing.js). Prints a table per family and the issue's targets; writes
// $B/bench/<family>.json, $B/bench/<family>.svg and $B/bench/bench.json
// (every family, machine, settings, targets).
//
// Usage: node tests/bench/bench.js [--quick] [--families a,b] [--kernels a,b]
//        [--sizes n1,n2] [--clock cpu|wall] [--no-peers] [--out DIR] [--merge]
//        [--rounds N] [--round-ms MS] [--estimator median|min]
//        (env: B, DIST, BENCH_QUICK=1). --merge: the families run now replace
//        theirs in an existing bench.json, the others stay.
import v8 from 'node:v8';

v8.setFlagsFromString('--experimental-wasm-relaxed-simd'); // before any compile

const { spawnSync } = await import('node:child_process');
const { existsSync, mkdirSync, readFileSync, writeFileSync } = await import('node:fs');
const os = await import('node:os');
const path = await import('node:path');
const { fileURLToPath } = await import('node:url');
const { loadBuilds } = await import('./raw.js');
const { loadPeers } = await import('./peers.js');
const { runFamilies, commonArg } = await import('./run.js');
const { settings } = await import('./timing.js');
const { familyTable, familySvg } = await import('../../scripts/bench/report.js');
const { computeTargets, formatTargets } = await import('../../scripts/bench/targets.js');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const log = (s) => process.stderr.write(s + '\n');

export function parseArgs(argv) {
  const o = { quick: process.env.BENCH_QUICK === '1', families: null, kernels: null, sizes: null, clock: 'cpu', peers: true, out: null, merge: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i], j = commonArg(o, argv, i);
    if (j >= 0) i = j;
    else if (a === '--clock') o.clock = argv[++i];
    else if (a === '--merge') o.merge = true;
    else throw new Error(`bench: unknown argument "${a}"`);
  }
  return o;
}

export function machine() {
  let cpu = os.cpus()[0]?.model ?? 'unknown';
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) cpu = m[1].trim();
  } catch { /* not Linux */ }
  const git = spawnSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  return { date: new Date().toISOString(), node: process.version, v8: process.versions.v8, cpu, cores: os.cpus().length,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`, git: git.status === 0 ? git.stdout.trim() : null, loadavg: os.loadavg() };
}

/** Run the families; returns the whole result (also written to $B/bench). */
export async function runBench(opts) {
  const B = path.resolve(root, process.env.B || 'build'), DIST = path.resolve(root, process.env.DIST || 'wasm/dist');
  const labels = ['relaxed', 'simd', 'scalar'].filter((l) => existsSync(path.join(DIST, `softscope-${l}.wasm`)));
  const builds = await loadBuilds(DIST, labels);
  const peers = opts.peers ? await loadPeers() : { versions: {} };
  const st = { ...settings(opts.quick), ...opts.settings }; // opts.settings: bench-check's rounds
  const result = { machine: machine(), settings: { quick: opts.quick, clock: opts.clock, ...st, builds: labels, peers: peers.versions }, families: {} };
  log(`bench: builds ${labels.join(', ')}; peers ${Object.keys(peers.versions).join(', ') || 'none'}; clock ${opts.clock}${opts.quick ? '; QUICK' : ''}`);

  result.families = await runFamilies({ builds, peers }, opts, st, log);
  const outDir = opts.out ? path.resolve(root, opts.out) : path.join(B, 'bench');
  if (opts.merge && existsSync(path.join(outDir, 'bench.json'))) {
    const old = JSON.parse(readFileSync(path.join(outDir, 'bench.json'), 'utf8'));
    // into a run that was itself merged into: the other families are still
    // from the first run (its date and load), and its reruns stay listed
    result.merged = { from: old.merged?.from ?? old.machine.date, fromLoadavg: old.merged?.fromLoadavg ?? old.machine.loadavg,
      rerun: [...new Set([...(old.merged?.rerun ?? []), ...Object.keys(result.families)])] };
    result.families = { ...old.families, ...result.families };
  }
  result.targets = computeTargets(result);

  mkdirSync(outDir, { recursive: true });
  for (const fam of Object.values(result.families)) {
    writeFileSync(path.join(outDir, `${fam.family}.json`), JSON.stringify({ machine: result.machine, settings: result.settings, ...fam,
      targets: result.targets.filter((t) => t.family === fam.family) }, null, 1) + '\n');
    const svg = familySvg(fam);
    if (svg) writeFileSync(path.join(outDir, `${fam.family}.svg`), svg);
  }
  writeFileSync(path.join(outDir, 'bench.json'), JSON.stringify(result, null, 1) + '\n');
  result.outDir = outDir;
  return result;
}

export function formatBench(result) {
  const m = result.machine, s = result.settings;
  let text = `softscope bench — ${m.cpu}, ${m.cores} cores, node ${m.node} (V8 ${m.v8}), load ${m.loadavg.map((v) => v.toFixed(1)).join(' ')}${s.quick ? ' — QUICK run: rough figures' : ''}\n`;
  text += `medians of interleaved rounds of ~${s.roundMs} ms per candidate (${s.rounds} rounds unless a family says), ${s.clock} clock; builds: ${s.builds.join(', ')}\n`;
  text += `peers: ${Object.entries(s.peers).map(([k, v]) => `${k} ${v}`).join('; ') || 'none'}\n`;
  const mg = result.merged;
  if (mg) text += `merged: ${mg.rerun.join(', ')} rerun now into the run of ${mg.from}${mg.fromLoadavg ? ` (load ${mg.fromLoadavg.map((v) => v.toFixed(1)).join(' ')})` : ''}, which the other families are from\n`;
  for (const fam of Object.values(result.families)) {
    text += `\n== ${fam.title} — ${fam.unit}, median of ${fam.rounds} rounds; input: ${fam.input}\n`;
    text += familyTable(fam);
  }
  text += '\n' + formatTargets(result.targets);
  return text;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const opts = parseArgs(process.argv.slice(2));
  const result = await runBench(opts);
  process.stdout.write(formatBench(result));
  console.log(`\nwrote ${path.relative(root, result.outDir)}/{${Object.keys(result.families).join(',')}}.{json,svg} and bench.json`);
}
