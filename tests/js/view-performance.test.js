// The Performance view: its schema (defaults from the registry, a state that
// round-trips through its link), the model (the ratios and rows drawn are
// computed from the timings it is given: no timing here), the runner
// (driven by a fake clock: every candidate of every build runs, progress
// counts every step to the total, a kernel without plain JS or that fails
// is reported, not timed), and the headless figure (`softscope figure
// performance`: axes, labels, a bar per build, the numbers as JSON). Speed
// is never asserted: that is what the view shows.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from '../../wasm/api/index.js';
import { defaults, parse, toHash, hashEntries } from '../../wasm/state/schema.js';
import { performanceView as view } from '../../wasm/views/performance/index.js';
import { BUILDS } from '../../wasm/views/performance/schema.js';
import { runTimings, benchLogits } from '../../wasm/views/performance/runner.js';
import { race, raceSteps, median } from '../../wasm/analysis/race.js';
import { jsVariants } from '../../wasm/analysis/plain-js.js';
import { svgElements, inside, one } from './support/figure.js';
import { runCli } from './support/run-cli.js';
import { figureFiles } from '../../wasm/views/files.js';

let ss, scalar;
beforeAll(async () => {
  ss = await createSoftscope({ impl: 'simd' });
  scalar = await createSoftscope({ impl: 'scalar' });
});

// A clock that moves 1 ms per reading: race() calibrates and times deterministically.
const fakeClock = () => { let t = 0; return () => (t += 1e6); };

describe('schema', () => {
  it('defaults: registry normalizers, n = 2^16, every build, 7 rounds', () => {
    const d = defaults(view.schema, ss);
    const names = ss.kernels('normalizer').map((k) => k.name);
    expect(d.kernels.length).toBeGreaterThan(0);
    for (const k of d.kernels) expect(names).toContain(k);
    expect(d.n).toBe(65536);
    expect(d.builds).toEqual(BUILDS);
    expect(d.rounds).toBe(7);
    expect(toHash(view.schema, d, ss)).toBe('view=performance');
  });

  it('a state with every key set round-trips through its link; a bad n falls back with a notice', () => {
    const s = { kernels: ['log_softmax', 'sparsemax'], n: 1024, builds: ['simd', 'js'], rounds: 3, ms: 10 };
    const hash = toHash(view.schema, s, ss);
    expect(hash).toBe('view=performance&kernels=log_softmax,sparsemax&n=1024&builds=simd,js&rounds=3&ms=10');
    const r = parse(view.schema, hashEntries(hash), ss, { ignore: ['view'] });
    expect(r.notices).toEqual([]);
    expect(r.state).toEqual(s);
    const bad = parse(view.schema, hashEntries('n=1000&builds=simd,gpu'), ss);
    expect(bad.state.n).toBe(65536);
    expect(bad.notices.map((x) => x.key)).toEqual(['n', 'builds']);
    expect(bad.state.builds).toEqual(['simd']);
  });
});

describe('model', () => {
  const state = { kernels: ['softmax', 'entmax15'], n: 4096, builds: ['relaxed', 'simd', 'scalar', 'js'], rounds: 5, ms: 20 };
  const row = (kernel, build, ns) => ({ kernel, build, ns_per_elem: ns, min: ns * 0.9, max: ns * 1.2, rounds: [ns] });
  const timings = {
    n: 4096, rounds: 5, ms: 20, input: 'logits', userAgent: 'TestBrowser/1.0', unavailable: { relaxed: 'this engine does not validate relaxed SIMD' },
    results: [row('softmax', 'simd', 1.5), row('softmax', 'scalar', 6), row('softmax', 'js', 9),
      row('entmax15', 'simd', 2), row('entmax15', 'scalar', 5), { kernel: 'entmax15', build: 'js', error: 'no plain-JS entmax15' }],
  };

  it('ratios are the reference time over the row\'s time, per kernel; unavailable builds have no row', () => {
    const d = view.compute(ss, state, timings);
    expect(d.ran).toBe(true);
    expect(d.userAgent).toBe('TestBrowser/1.0');
    expect(d.builds.find((b) => b.id === 'relaxed')).toEqual({ id: 'relaxed', label: 'relaxed SIMD', available: false, reason: 'this engine does not validate relaxed SIMD' });
    const sm = d.kernels.find((k) => k.name === 'softmax');
    expect(sm.rows.map((r) => r.build)).toEqual(['simd', 'scalar', 'js']);
    const simd = sm.rows[0];
    expect(simd.vsScalar).toBe(6 / 1.5);
    expect(simd.vsJs).toBe(9 / 1.5);
    expect(sm.rows[1].vsScalar).toBe(1);
    expect(sm.rows[2].vsScalar).toBe(6 / 9);
    const em = d.kernels.find((k) => k.name === 'entmax15');
    expect(em.rows.find((r) => r.build === 'js')).toEqual({ build: 'js', label: 'plain JS', error: 'no plain-JS entmax15' });
    expect(em.rows[0].vsJs).toBe(null); // no JS time, no ratio
    const t = view.table(d);
    expect(t.columns).toEqual(['kernel', 'build', 'n', 'ns_per_element', 'min', 'max', 'x_vs_scalar', 'x_vs_js']);
    expect(t.rows).toContainEqual(['softmax', 'simd', 4096, 1.5, 1.5 * 0.9, 1.5 * 1.2, 4, 6]);
    expect(t.rows).toHaveLength(5); // the js row of entmax15 has no time
  });

  it('before a run: the chosen kernels with no rows, and the state\'s n', () => {
    const d = view.compute(ss, state, null);
    expect(d.ran).toBe(false);
    expect(d.kernels).toEqual([{ name: 'softmax', rows: [] }, { name: 'entmax15', rows: [] }]);
    expect(d.pageBuild).toBe(ss.build ?? ss.impl);
    const { svg } = figureFiles(ss, view, state, d);
    const els = svgElements(svg);
    expect(els.filter((e) => 'data-placeholder' in e.attrs)).toHaveLength(2);
    expect(els.filter((e) => e.name === 'rect' && 'data-value' in e.attrs)).toHaveLength(0);
  });
});

describe('runner', () => {
  it('race(): every candidate gets one calibration and `rounds` timed rounds; the median', async () => {
    let steps = 0;
    const cands = ['a', 'b', 'c'].map((id) => ({ id, fn: () => {} }));
    const r = await race(cands, 10, { rounds: 4, roundMs: 1, warmupMs: 0, minCalls: 1 }, fakeClock(), () => steps++);
    expect(steps).toBe(raceSteps(3, 4));
    for (const id of ['a', 'b', 'c']) expect(r.get(id).rounds).toHaveLength(4);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
  });

  it('race(): a pause in one calibration batch and a coarse clock never give a free round', async () => {
    // simulated time: each call costs 1 us; the third call pauses 5 ms (GC); the clock ticks every 0.1 ms
    let t = 0, calls = 0;
    const fn = () => { t += 1000; if (++calls === 3) t += 5e6; };
    const now = () => Math.floor(t / 1e5) * 1e5;
    const r = await race([{ id: 'a', fn }], 1, { rounds: 5, roundMs: 4, warmupMs: 0, minCalls: 1 }, now);
    const a = r.get('a');
    expect(a.reps).toBeGreaterThan(1000); // ~4 ms of 1-us calls, not the 1 call the paused batch suggested
    for (const ns of a.rounds) expect(ns).toBeGreaterThan(900);
    expect(a.ns_per_elem).toBeLessThan(1100);
  });

  it('times each kernel in each instance and plain JS on the same logits; progress reaches the total', async () => {
    const seen = [], live = () => [ss, scalar].map((x) => x.heapStats().liveAllocations);
    const before = live();
    const t = await runTimings({ relaxed: null, simd: ss, scalar }, jsVariants, {
      kernels: ['softmax', 'entmax_bisect'], n: 512, builds: ['relaxed', 'simd', 'scalar', 'js'], rounds: 2, ms: 1, now: fakeClock(),
      onProgress: (p) => seen.push(p),
    });
    // softmax: simd, scalar, js; entmax_bisect: simd, scalar (no plain JS: reported)
    const total = raceSteps(3, 2) + raceSteps(2, 2);
    expect(seen[0]).toEqual({ done: 0, total, kernel: 'softmax' });
    expect(seen.at(-1)).toEqual({ done: total, total, kernel: 'entmax_bisect' });
    expect(t.results.map((r) => `${r.kernel}/${r.build}`).sort()).toEqual(
      ['entmax_bisect/js', 'entmax_bisect/scalar', 'entmax_bisect/simd', 'softmax/js', 'softmax/scalar', 'softmax/simd']);
    expect(t.results.find((r) => r.kernel === 'entmax_bisect' && r.build === 'js').error).toMatch(/no plain-JS entmax_bisect/);
    for (const r of t.results.filter((x) => !x.error)) expect(r.ns_per_elem > 0 && r.rounds.length === 2).toBe(true);
    // the wasm heaps get their buffers back
    expect(live()).toEqual(before);
  });

  it('the logits are seeded, finite and in [-10, 10)', () => {
    const x = benchLogits(1000);
    expect(benchLogits(1000)).toEqual(x);
    for (const v of x) expect(v >= -10 && v < 10).toBe(true);
  });
});

describe('headless: softscope figure performance', () => {
  it('times in Node and draws axes, labels and a bar per build and kernel; --data holds the numbers', async () => {
    const dir = await import('node:fs/promises').then((fs) => fs.mkdtemp('/tmp/softscope-perf-'));
    const r = await runCli(['figure', 'performance', '--state', 'kernels=softmax,sparsemax&n=1024&rounds=1&ms=2', '--out', `${dir}/p.svg`, '--data', `${dir}/p.json`]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const fs = await import('node:fs/promises');
    const els = svgElements(await fs.readFile(`${dir}/p.svg`, 'utf8'));
    const json = JSON.parse(await fs.readFile(`${dir}/p.json`, 'utf8'));
    expect(json.view).toBe('performance');
    expect(json.data.ran).toBe(true);
    expect(json.data.userAgent).toMatch(/^Node\.js v20/);
    expect(json.data.builds.map((b) => [b.id, b.available])).toEqual([['relaxed', true], ['simd', true], ['scalar', true], ['js', true]]);
    for (const k of ['softmax', 'sparsemax']) {
      const g = inside(els, 'data-kernel', k);
      const bars = g.filter((e) => e.name === 'rect' && 'data-value' in e.attrs).map((e) => Number(e.attrs['data-value']));
      const drawn = json.data.kernels.find((x) => x.name === k).rows.map((x) => x.ns);
      expect(bars).toEqual(drawn);
      expect(bars).toHaveLength(4);
      expect(g.some((e) => e.text === 'ns per element (log scale)')).toBe(true);
      expect(g.filter((e) => 'data-tick' in e.attrs).length).toBeGreaterThanOrEqual(2);
      for (const label of ['relaxed SIMD', 'SIMD128', 'scalar', 'plain JS']) expect(g.some((e) => e.text === label), label).toBe(true);
    }
    expect(one(els, 'data-line', 'ua').text).toBe(json.data.userAgent);
  }, 60000);
});
