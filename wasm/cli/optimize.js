// softscope optimize <optimizer>: a trajectory on a 2-D test function from
// the command line — a table of the path, JSON, and/or the Optimizers view's
// figure (heat map, minima, paths, loss) as SVG.
import { UsageError, parseNumberToken, parseParams, requireNoNaN, toJson, num, table } from './shared.js';
import { raceFigure } from './race-figure.js';
import { MAX_POINTS, BYTES_PER_POINT, requireMemory } from './budget.js';

// The table shows the first and last points; without --every a run longer
// than this keeps every ceil(steps / TABLE_POINTS)-th point for it.
const TABLE_POINTS = 1e5;

async function optimize(ctx, name, opt) {
  const ss = await ctx.load(opt.impl);
  if (!name) throw new UsageError('optimize: which optimizer? (softscope list --family optimizer)');
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
  if (opt.compare) for (const c of opt.compare.split(',').filter(Boolean)) ss.kernel(c, 'optimizer');
  // The run is streamed (the API takes it in slices); what is kept is the
  // points printed: with --json one in `every`, which must fit the budget.
  ss.trajectoryRunner(options); // checks every option before any work (runs no step)
  const steps = options.steps ?? 100;
  const runs = 1 + (opt.compare ? opt.compare.split(',').filter(Boolean).length : 0);
  let every = number('every', 'every');
  if (every !== undefined && !(Number.isInteger(every) && every >= 1)) throw new UsageError(`--every ${opt.every}: must be an integer >= 1`);
  if (opt.json) {
    const points = runs * (Math.floor(steps / (every ?? 1)) + 2); // the start, one in every, the last
    if (points > MAX_POINTS) {
      const fit = Math.ceil((runs * steps) / (MAX_POINTS - 2 * runs));
      requireMemory(points * BYTES_PER_POINT, `--json with --steps ${opt.steps}${every ? ` --every ${every}` : ''} prints ${points} points (at most ${MAX_POINTS}), which`,
        `add --every ${fit} (or more) to print one step in ${fit}`);
    }
  } else every ??= Math.max(1, Math.ceil(steps / TABLE_POINTS));
  if (every !== undefined) options.every = every;
  const r = ss.trajectory(options);
  const compare = (opt.compare ? opt.compare.split(',').filter(Boolean) : [])
    .map((c) => ss.trajectory({ ...options, optimizer: c, params: {} }));
  for (const run of [r, ...compare]) requireNoNaN(run.kernel, { output: run.output, metrics: run.metrics });
  if (opt.svg) {
    const { every: _, ...figureOptions } = options;
    await ctx.write(opt.svg, raceFigure(ss, figureOptions, compare.map((c) => c.kernel)), '--svg');
  }
  if (opt.json) {
    const { kernel, impl, ...rest } = r;
    const res = { kernel, impl, build: ss.build, ...rest };
    if (every > 1) res.every = every;
    if (compare.length) res.compare = compare.map((c) => ({ kernel: c.kernel, output: c.output, metrics: c.metrics }));
    ctx.out(toJson(res));
    return;
  }
  ctx.out(`${r.kernel} (${r.impl}) on ${r.fn}, ${r.metrics.steps} steps, ${Object.entries(options.params).map(([a, b]) => `${a}=${b}`).join(', ') || 'defaults'}${every > 1 ? `; one step in ${every} shown` : ''}`);
  // output[i] is step i * every, and the last point the last step taken
  const step = (i) => (i === r.output.length - 1 ? r.metrics.steps : i * every);
  const shown = r.output.length <= 12 ? r.output.map((p, i) => [step(i), ...p])
    : [...r.output.slice(0, 5).map((p, i) => [step(i), ...p]), ['...', '', '', ''], ...r.output.slice(-5).map((p, i) => [step(r.output.length - 5 + i), ...p])];
  ctx.out(table(shown.map((row) => row.map((v) => (typeof v === 'number' ? num(v) : v))), ['step', 'x', 'y', 'f']));
  for (const m of [r, ...compare])
    ctx.out(`${m.kernel}: ${Object.entries(m.metrics).map(([a, b]) => `${a} ${Array.isArray(b) ? b.map((v) => num(v)).join(',') : num(b)}`).join('  ')}`);
}

export const command = {
  name: 'optimize',
  summary: 'run an optimizer on a 2-D test function',
  usage: 'softscope optimize <optimizer> --fn F [--start x,y] [--steps N] [--every K] [--param name=value]... [--json] [--svg FILE]',
  options: { fn: 'value', start: 'value', steps: 'value', noise: 'value', clip: 'value', seed: 'value', schedule: 'value', warmup: 'value',
    every: 'value', compare: 'value', svg: 'value', param: 'list', impl: 'value', json: 'flag' },
  help: (ss) => `  --fn F            ${ss.functions.map((f) => f.name).join(' | ')} (default rosenbrock)
  --start x,y       start point (default: the function's)
  --steps N         steps (default 100, at most 10^7; the run is streamed: 10^7 steps take about 1 s per 10^6
                    and the memory of the points printed)
  --every K         keep every K-th step (and the last) in the output; the metrics are over every step.
                    --json prints at most ${MAX_POINTS} points (more exits 2 naming the --every that fits);
                    the table, without --every, shows every ceil(steps / ${TABLE_POINTS})-th step
  --param k=v       a hyperparameter of the optimizer (softscope list --family optimizer)
  --noise S         Gaussian gradient noise of std S (seeded by --seed, default 0)
  --clip C          clip the gradient norm to C (default 0: off)
  --schedule S      ${ss.schedules.join(' | ')}: the learning-rate schedule over the run
  --warmup W        warm-up steps of the schedule (default 0)
  --compare a,b,..  also run these optimizers (their defaults) from the same start: "compare" in the JSON
  --svg FILE        write the figure (heat map, minima, paths) as SVG
  --json prints {"kernel","impl","build","fn","output":[[x, y, f]: the start, then each step],"metrics":
  {"steps","diverged","final_f","best_f","f_gap","distance","nearest_minimum"}}; with --every K > 1 also
  "every": K, and output holds steps 0, K, 2K, ... and the last step taken`,
  positional: [1, 1],
  async run(ctx, { pos, opt }) {
    return optimize(ctx, pos[0], opt);
  },
};
