// Optimizers through the JS API and the CLI: Adam's step against a float64
// reference written here (bias-corrected moments, eps after the square
// root); every optimizer bit-identical between the scalar and the SIMD wasm
// builds on an element-wise case; trajectories whose points are f at their
// (x, y); a runner advanced in chunks equals one run, and a parameter change
// mid-run acts from the next step; functionGrid equals evalFunction; the
// CLI's --json contract and --svg figure; errors name their argument.
// Per-kernel equations are tested in C (tests/c/test_optim.c).
import { describe, it, expect, beforeAll } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSoftscope } from 'softscope';
import { runCli } from './support/run-cli.js';

const run = runCli;

function values(n, seed, scale = 1) {
  const x = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (s * 1664525 + 1013904223) >>> 0;
    x[i] = ((s / 2 ** 32) * 2 - 1) * scale;
  }
  return x;
}

let ss, scalar;
beforeAll(async () => {
  ss = await createSoftscope();
  scalar = await createSoftscope({ impl: 'scalar' });
});

describe('optimizers in JS', () => {
  it('lists 21 optimizers with their state size, and the test functions and schedules', () => {
    const opts = ss.kernels('optimizer');
    expect(opts.length).toBe(21);
    expect(opts.find((k) => k.name === 'adam')).toMatchObject({ state_slots: 2, lookahead: false });
    expect(opts.find((k) => k.name === 'sam').lookahead).toBe(true);
    expect(opts.find((k) => k.name === 'ema').averaged).toBe(true);
    const adam = opts.find((k) => k.name === 'adam').params;
    expect(Object.fromEntries(adam.map((p) => [p.name, p.default]))).toEqual({ lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weight_decay: 0 });
    expect(ss.functions.map((f) => f.name)).toEqual(['quadratic', 'rosenbrock', 'rastrigin', 'beale', 'himmelblau', 'saddle', 'plateau', 'bilinear']);
    expect(ss.schedules).toEqual(['constant', 'cosine', 'wsd']);
  });

  it('adam matches a float64 reference over 6 steps (2e-6 relative)', () => {
    const n = 13, p = { lr: 0.01, beta1: 0.8, beta2: 0.95, eps: 1e-8, weight_decay: 0.1 };
    const w = values(n, 1), st = ss.optimizerState('adam', n);
    const ref = Float64Array.from(w), m = new Float64Array(n), v = new Float64Array(n);
    for (let t = 1; t <= 6; t++) {
      const g = values(n, 10 + t);
      ss.optimize('adam', w, g, p, st);
      for (let i = 0; i < n; i++) {
        const gi = g[i] + p.weight_decay * ref[i];
        m[i] = p.beta1 * m[i] + (1 - p.beta1) * gi;
        v[i] = p.beta2 * v[i] + (1 - p.beta2) * gi * gi;
        ref[i] -= (p.lr * m[i] / (1 - p.beta1 ** t)) / (Math.sqrt(v[i] / (1 - p.beta2 ** t)) + p.eps);
      }
    }
    expect(st.scalars[0]).toBe(6);
    for (let i = 0; i < n; i++) expect(Math.abs(w[i] - ref[i])).toBeLessThan(2e-6 * Math.max(1, Math.abs(ref[i])));
  });

  it('the element-wise optimizers are bit-identical in the scalar and SIMD builds', () => {
    const n = 103;
    for (const k of ss.kernels('optimizer')) {
      if (['adagrad_norm', 'lars', 'lamb', 'sage', 'perpgrad', 'adam_atan2'].includes(k.name)) continue; // norms / atan2: C bounds them
      const a = values(n, 3), b = Float32Array.from(a);
      const sa = ss.optimizerState(k.name, n), sb = scalar.optimizerState(k.name, n);
      for (let t = 0; t < 5; t++) {
        const g = values(n, 20 + t);
        ss.optimize(k.name, a, g, {}, sa);
        scalar.optimize(k.name, b, g, {}, sb);
      }
      expect(Array.from(a), k.name).toEqual(Array.from(b));
    }
  });

  it('a trajectory starts at the start and its f values are f(x, y)', () => {
    const r = ss.trajectory({ optimizer: 'momentum', fn: 'himmelblau', start: [0, 0], steps: 200, params: { lr: 0.005 } });
    expect(r).toMatchObject({ kernel: 'momentum', fn: 'himmelblau' });
    expect(r.output.length).toBe(201);
    expect(r.output[0]).toEqual([0, 0, 170]);
    for (const [x, y, f] of r.output.filter((_, i) => i % 20 === 0)) expect(f).toBeCloseTo(ss.evalFunction('himmelblau', x, y).f, 12);
    expect(r.metrics.steps).toBe(200);
    expect(r.metrics.diverged).toBe(false);
    expect(r.metrics.distance).toBeLessThan(1e-2); // one of the four minima
    expect(r.metrics.final_f).toBeLessThan(1e-3);
  });

  it('a runner advanced in chunks equals one run; a new lr acts from the next step', () => {
    const opts = { optimizer: 'adam', fn: 'rosenbrock', steps: 90, params: { lr: 0.02 }, noise: 0.5, seed: 4, schedule: 'cosine', total: 90 };
    const whole = ss.trajectory(opts).output.slice(1);
    const r = ss.trajectoryRunner(opts);
    const parts = [...r.advance(40), ...r.advance(1), ...r.advance(49)];
    expect(parts).toEqual(whole);
    expect(r.step).toBe(90);
    const a = ss.trajectoryRunner({ optimizer: 'sgd', fn: 'quadratic', params: { lr: 0.01 } });
    const b = ss.trajectoryRunner({ optimizer: 'sgd', fn: 'quadratic', params: { lr: 0.01 } });
    expect(a.advance(10)).toEqual(b.advance(10));
    b.params = { lr: 0.05 };
    const [pa] = a.advance(1), [pb] = b.advance(1);
    expect(pb).not.toEqual(pa);
    expect(pb[2]).toBeLessThan(pa[2]); // the bigger step goes further down the convex bowl
  });

  it('functionGrid equals evalFunction at the grid points', () => {
    const fn = ss.functions.find((f) => f.name === 'beale');
    const g = ss.functionGrid('beale', { nx: 4, ny: 3 });
    const [x0, x1, y0, y1] = fn.view;
    for (let j = 0; j < 3; j++)
      for (let i = 0; i < 4; i++)
        expect(g[j * 4 + i]).toBe(Math.fround(ss.evalFunction('beale', x0 + (x1 - x0) * i / 3, y0 + (y1 - y0) * j / 2).f));
  });

  it('samPerturb steps rho along the normalized gradient', () => {
    const w = Float32Array.from([1, 1]), g = Float32Array.from([3, -4]);
    expect(Array.from(ss.samPerturb(w, g, 0.5))).toEqual([Math.fround(1 + 0.3), Math.fround(1 - 0.4)]);
  });

  it('bad input throws an Error that names the argument', () => {
    const st = ss.optimizerState('adam', 3), w = new Float32Array(3);
    const arg = (f) => { try { f(); } catch (e) { return [e.argument, e.message]; } return null; };
    expect(arg(() => ss.optimize('adam', [0, 0, 0], new Float32Array(3), {}, st))[0]).toBe('w');
    expect(arg(() => ss.optimize('adam', w, new Float32Array(4), {}, st))[0]).toBe('g');
    expect(arg(() => ss.optimize('adam', w, Float32Array.from([0, NaN, 0]), {}, st))).toEqual(['g', expect.stringMatching(/NaN/)]);
    expect(arg(() => ss.optimize('adam', w, new Float32Array(3), { beta1: 1 }, st))[0]).toBe('params.beta1');
    expect(arg(() => ss.optimize('adam', w, new Float32Array(3), { lr: -0.1 }, st))[0]).toBe('params.lr');
    expect(arg(() => ss.optimize('adam', w, new Float32Array(3), {}, ss.optimizerState('sgd', 3)))[0]).toBe('state');
    expect(arg(() => ss.optimize('adam', w, new Float32Array(3), {}, {}))[0]).toBe('state');
    expect(arg(() => ss.optimize('softmax', w, new Float32Array(3), {}, st))[0]).toBe('kernel');
    expect(arg(() => ss.trajectory({ optimizer: 'adam', fn: 'nope' }))[0]).toBe('options.fn');
    expect(arg(() => ss.trajectory({ optimizer: 'adam', schedule: 'linear' }))[0]).toBe('options.schedule');
    expect(arg(() => ss.trajectory({ optimizer: 'adam', noise: -1 }))[0]).toBe('options.noise');
    expect(arg(() => ss.trajectory({ optimizer: 'adam', start: [0, NaN] }))[0]).toBe('options.start');
    expect(arg(() => ss.trajectory({ fn: 'quadratic' }))[0]).toBe('options.optimizer');
    expect(arg(() => ss.optimizerState('adam', 0))[0]).toBe('n');
    expect(arg(() => ss.functionGrid('quadratic', { nx: 1 }))[0]).toBe('options.nx');
  });
});

describe('softscope optimize (CLI)', () => {
  it('--json prints kernel, impl, fn, output from the start and metrics', async () => {
    const r = await run(['optimize', 'adam', '--fn', 'quadratic', '--start', '2,-1', '--steps', '30', '--param', 'lr=0.1', '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(Object.keys(j)).toEqual(['kernel', 'impl', 'build', 'fn', 'output', 'metrics']);
    expect(j.output.length).toBe(31);
    expect(j.output[0].slice(0, 2)).toEqual([2, -1]);
    const [x, y, f] = j.output[30];
    expect(j.metrics.final_f).toBe(f);
    expect(j.metrics.distance).toBeCloseTo(Math.hypot(x, y), 12);
    expect(f).toBeLessThan(j.output[0][2]);
  });

  it('--compare and --svg draw one path per optimizer', async () => {
    const svg = join(mkdtempSync(join(tmpdir(), 'softscope-opt-')), 'r.svg');
    const r = await run(['optimize', 'sgd', '--fn', 'bilinear', '--steps', '50', '--param', 'lr=0.1', '--compare', 'ogda', '--svg', svg, '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.compare.map((c) => c.kernel)).toEqual(['ogda']);
    const text = readFileSync(svg, 'utf8');
    // the Optimizers view's figure: a path per optimizer, and each run's last step and point
    expect([...text.matchAll(/<g data-path="(\w+)"/g)].map((m) => m[1])).toEqual(['sgd', 'ogda']);
    const runs = [...text.matchAll(/<g data-run="(\w+)" data-run-step="(\d+)" data-x="([^"]*)" data-y="([^"]*)"/g)];
    expect(runs.map((m) => [m[1], Number(m[2])])).toEqual([['sgd', 50], ['ogda', 50]]);
    const last = j.output[j.output.length - 1];
    expect(Number(runs[0][3])).toBeCloseTo(last[0], 5);
    expect(Number(runs[0][4])).toBeCloseTo(last[1], 5);
  });

  it('bad hyperparameters and unknown functions exit 2 naming them', async () => {
    const a = await run(['optimize', 'adam', '--param', 'beta2=1']);
    expect(a.code).toBe(2);
    expect(a.err).toMatch(/--param beta2/);
    const b = await run(['optimize', 'adam', '--fn', 'nope']);
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/unknown function "nope"/);
    const c = await run(['optimize', 'adam', '--input', '[1]']);
    expect(c.code).toBe(2);
  });
});
