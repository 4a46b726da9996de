// `softscope optimize <optimizer>`: a trajectory on a 2-D test function
// (wasm/optim-calls.js) from the command line — a table of the path, the
// JSON {"kernel","impl","fn","output":[[x, y, f], ...],"metrics"} and/or an
// SVG figure. cli.js parses the argv and dispatches here, passing the helpers
// it shares (as for cli-sweep.js).
import { writeFile } from 'node:fs/promises';
import { trajectorySvg } from './optim-svg.js';

/** Valued options of `optimize` (seed and svg are shared with sweep). */
export const OPTIMIZE_OPTIONS = ['fn', 'start', 'steps', 'noise', 'clip', 'schedule', 'warmup', 'compare'];
export const OPTIMIZE_SHARED = ['seed', 'svg'];

export const OPTIMIZE_HELP = `optimize <optimizer>: run it on a 2-D test function and print the path
  --fn F            quadratic | rosenbrock | rastrigin | beale | himmelblau | saddle | plateau | bilinear
                    (default rosenbrock)
  --start x,y       start point (default: the function's)
  --steps N         steps (default 100, at most 10^7)
  --param k=v       a hyperparameter of the optimizer (softscope list --family optimizer)
  --noise S         Gaussian gradient noise of std S (seeded by --seed, default 0)
  --clip C          clip the gradient norm to C (default 0: off)
  --schedule S      constant | cosine | wsd learning-rate schedule over the run
  --warmup W        warm-up steps of the schedule (default 0)
  --compare a,b,..  also run these optimizers (their defaults) from the same start: "compare" in the JSON
  --svg FILE        write the figure (heat map, minima, paths) as SVG
  --json prints {"kernel","impl","fn","output":[[x, y, f]: the start, then each step],"metrics":
  {"steps","diverged","final_f","best_f","f_gap","distance","nearest_minimum"}}`;

export async function cmdOptimize(ss, name, opt, out, h) {
  const { UsageError, parseNumberToken, parseParams, toJson, num, table } = h;
  if (!name) throw new UsageError('optimize: which optimizer? (softscope list --family optimizer)');
  if (opt.input !== undefined || opt.input2 !== undefined) throw new UsageError('optimize: takes no --input (the gradient comes from --fn)');
  const k = ss.kernel(name, 'optimizer');
  const number = (flag, key) => (opt[key] === undefined ? undefined : parseNumberToken(opt[key], `--${flag}`, 0));
  const options = { optimizer: k.name, fn: opt.fn ?? 'rosenbrock', params: parseParams(opt.param, k) };
  if (opt.start !== undefined) {
    const xy = opt.start.split(',').map((t) => parseNumberToken(t, '--start', 0));
    if (xy.length !== 2) throw new UsageError(`--start ${opt.start}: expected x,y`);
    options.start = xy;
  }
  for (const [flag, key] of [['steps', 'steps'], ['noise', 'noise'], ['clip', 'clip'], ['seed', 'seed'], ['warmup', 'warmup']]) {
    const v = number(flag, key);
    if (v !== undefined) options[key] = v;
  }
  if (opt.schedule !== undefined) options.schedule = opt.schedule;
  const r = ss.trajectory(options);
  const compare = (opt.compare ? opt.compare.split(',').filter(Boolean) : [])
    .map((c) => ss.trajectory({ ...options, optimizer: c, params: {} }));
  if (opt.svg) {
    const grid = ss.functionGrid(r.fn, { nx: 60, ny: 60 });
    await writeFile(opt.svg, trajectorySvg(ss.functions.find((f) => f.name === r.fn), [r, ...compare], grid, 60));
  }
  if (opt.json) {
    const res = { ...r };
    if (compare.length) res.compare = compare.map((c) => ({ kernel: c.kernel, output: c.output, metrics: c.metrics }));
    out(toJson(res));
    return;
  }
  out(`${r.kernel} (${r.impl}) on ${r.fn}, ${r.metrics.steps} steps, ${Object.entries(options.params).map(([a, b]) => `${a}=${b}`).join(', ') || 'defaults'}`);
  const shown = r.output.length <= 12 ? r.output.map((p, i) => [i, ...p])
    : [...r.output.slice(0, 5).map((p, i) => [i, ...p]), ['...', '', '', ''], ...r.output.slice(-5).map((p, i) => [r.output.length - 5 + i, ...p])];
  out(table(shown.map((row) => row.map((v) => (typeof v === 'number' ? num(v) : v))), ['step', 'x', 'y', 'f']));
  for (const m of [r, ...compare])
    out(`${m.kernel}: ${Object.entries(m.metrics).map(([a, b]) => `${a} ${Array.isArray(b) ? b.map((v) => num(v)).join(',') : num(b)}`).join('  ')}`);
}
