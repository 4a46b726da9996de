// The CLI for the learned rounding, the random-feature attention and the
// outlier measures: list and describe show them; `quantize adaround` prints
// the layer's reconstruction error next to nearest rounding's and the flips
// (recomputed here in float64 from the printed output, the input and the
// calibration recipe); `attend trig|hrf` run, and a non-positive normalizer
// estimate exits 2 with one line naming --param scale; `attend` reports the
// head measures (the dormant head: softmax sinks, softpick does not);
// `measure kurtosis` equals a float64 reference and a constant input exits 2;
// each command's --help says so.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { runCli as run } from './support/run-cli.js';
import { rng, refKurtosis, refLayerError } from './support/reference.js';

let ss;
beforeAll(async () => { ss = await createSoftscope(); });

const weights = (n, seed) => {
  const r = rng(seed);
  return Array.from({ length: n }, () => Number((Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r())).toFixed(4)));
};

describe.concurrent('softscope on the learned rounding, random features and outlier measures', () => {
  it('list and describe show adaround, trig, hrf, kurtosis and max_median_ratio within 100 columns', async () => {
    const r = await run(['list']);
    expect(r.code, r.err).toBe(0);
    const lines = r.out.split('\n');
    for (const [name, family] of [['adaround', 'quantizer'], ['trig', 'attention'], ['hrf', 'attention'], ['kurtosis', 'measure'], ['max_median_ratio', 'measure']])
      expect(lines.some((l) => new RegExp(`^${name} +${family} `).test(l)), name).toBe(true);
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(100);
    const d = await run(['describe', 'performer']);
    expect(d.out).toMatch(/orthogonal \(bool\) = 1/);
    expect((await run(['describe', 'hrf'])).out).toContain(ss.kernel('hrf').formula);
  });

  it('quantize adaround: the layer error against nearest rounding\'s, recomputed in float64, and the flips', async () => {
    const w = weights(80, 3); // 5 rows of 16
    const r = await run(['quantize', 'adaround', '--input', JSON.stringify(w), '--param', 'bits=3', '--param', 'corr=0.6', '--param', 'iters=300', '--json']);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    const L = j.metrics.layer;
    expect([L.rows, L.cols, L.batch]).toEqual([5, 16, 64]);
    // the registry form's calibration inputs (C draws them: AR(1) over the normals of (seed 0, stream 1))
    const x = ss.adaroundInputs(16, 64, { seed: 0, corr: 0.6 });
    const wf = Float32Array.from(w);
    const err = (wq) => refLayerError(wf, wq, x, 5, 16, 64);
    const near = ss.quantize('uniform', wf, { bits: 3 });
    expect(Math.abs(L.error - err(Float32Array.from(j.output)))).toBeLessThanOrEqual(1e-9 * L.error); // printed as the shortest decimal of each float
    expect(Math.abs(L.error_nearest - err(near.output))).toBeLessThanOrEqual(1e-9 * L.error_nearest);
    expect(L.error).toBeLessThanOrEqual(L.error_nearest);
    expect(L.gain).toBeCloseTo(1 - L.error / L.error_nearest, 12);
    expect(L.flipped).toBe(j.codes.filter((q, i) => q !== near.codes[i]).length);
    for (let i = 0; i < w.length; i++) expect(Math.abs(j.codes[i] - near.codes[i])).toBeLessThanOrEqual(1);
    const t = await run(['quantize', 'adaround', '--input', JSON.stringify(w), '--param', 'iters=200']);
    expect(t.out).toMatch(/layer 5 x 16, 64 calibration inputs: \|WX - W~X\|\^2 = [\d.]+ \(nearest rounding: [\d.]+, [\d.-]+ % lower\)/);
    expect(t.out).toMatch(/flipped from nearest rounding: \d+ of 80 weights/);
  });

  it('attend trig and hrf run; a non-positive normalizer estimate exits 2 with one line naming --param scale', async () => {
    for (const k of ['trig', 'hrf']) {
      const r = await run(['attend', k, '--example', 'random', '--n', '16', '--param', 'scale=0.125', '--json']);
      expect(r.code, r.err).toBe(0);
      const j = JSON.parse(r.out);
      expect(j.output.length).toBe(16);
      for (const row of j.attention[0]) expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 4);
    }
    const bad = await run(['attend', 'trig', '--example', 'random', '--param', 'scale=1', '--param', 'features=4']);
    expect(bad.code).toBe(2);
    expect(bad.err.trim().split('\n')).toHaveLength(1);
    expect(bad.err).toMatch(/^softscope: attend trig: --param scale = 1 .*normalizer estimate is not a positive float/);
  });

  it('attend reports the head measures: on the dormant example softmax sinks on key 0 and softpick does not', async () => {
    const a = JSON.parse((await run(['attend', 'sdpa', '--example', 'dormant', '--json'])).out);
    const b = JSON.parse((await run(['attend', 'sdpa', '--example', 'dormant', '--normalizer', 'softpick', '--json'])).out);
    expect(a.attention.length).toBe(2); // the example's two heads
    expect(a.metrics.sink_head).toEqual([true, false]);
    expect(b.metrics.sink_head).toEqual([false, false]);
    expect(b.metrics.kurtosis[0]).toBe(null); // softpick's dormant head outputs exact zeros: no kurtosis
    expect(b.attention[0].flat().every((v) => v === 0)).toBe(true);
    // kurtosis of head 1's output columns, in float64
    expect(a.metrics.kurtosis[1]).toBeCloseTo(refKurtosis(a.output.flatMap((row) => row.slice(8, 16))), 5);
    const t = await run(['attend', 'sdpa', '--example', 'dormant']);
    expect(t.out).toMatch(/kurtosis [\d.]+,[\d.]+ {2}max_median_ratio [\d.]+,[\d.]+ {2}sink_head yes,no/);
  });

  it('measure kurtosis equals a float64 reference; a constant input exits 2 saying why', async () => {
    const x = weights(37, 8);
    const r = await run(['measure', 'kurtosis', '--input', JSON.stringify(x), '--json']);
    expect(r.code, r.err).toBe(0);
    const k = refKurtosis(Float32Array.from(x));
    expect(Math.abs(JSON.parse(r.out).output - k)).toBeLessThanOrEqual(1e-12 * k);
    const c = await run(['measure', 'kurtosis', '--input', '[2, 2, 2]']);
    expect(c.code).toBe(2);
    expect(c.err.trim().split('\n')).toHaveLength(1);
    expect(c.err).toMatch(/--input has no spread/);
    const m = await run(['measure', 'max_median_ratio', '--input', '[0, 0, 4]']);
    expect(m.code).toBe(2);
    expect(m.err).toMatch(/median magnitude is 0/);
  });

  it('--help of quantize, attend and measure says what is new', async () => {
    expect((await run(['quantize', '--help'])).out).toMatch(/adaround .*layer/s);
    const a = (await run(['attend', '--help'])).out;
    expect(a).toMatch(/dormant/);
    expect(a).toMatch(/trig and hrf .*--param scale/s);
    expect(a).toMatch(/"kurtosis","max_median_ratio"/);
    expect((await run(['measure', '--help'])).out).toMatch(/any finite values .*kurtosis, max_median_ratio/s);
  });
});
