// Attention through the JS API and the CLI: sdpa with softmax against a
// float64 reference written here (scores, softmax, A V); the scalar and SIMD
// builds agree within 1e-5; masked keys (padding, causal) get weight 0; the
// linear forms' output is their attention matrix times V; the measures of a
// uniform row; the copy example's rows find their source; the CLI's --json
// contract; errors name their argument. Per-kernel semantics are tested in C
// (tests/c/test_attention.c).
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { attentionExample } from '../../wasm/analysis/attention-examples.js';
import { runCli as run } from './support/run-cli.js';

let ss, scalar;
beforeAll(async () => {
  ss = await createSoftscope();
  scalar = await createSoftscope({ impl: 'scalar' });
});

function refSdpa(x, scale, causal = false, mask = null) {
  const { q, k, v, n } = x, m = x.m ?? n, d = q.length / n, dv = v.length / m, out = new Float64Array(n * dv);
  for (let i = 0; i < n; i++) {
    const s = new Float64Array(m).fill(-Infinity);
    for (let j = 0; j < m; j++) {
      if ((mask && !mask[j]) || (causal && j > i + m - n)) continue;
      let t = 0;
      for (let c = 0; c < d; c++) t += q[i * d + c] * k[j * d + c];
      s[j] = t * scale;
    }
    const mx = Math.max(...s);
    let z = 0;
    const p = Array.from(s, (t) => { const e = Math.exp(t - mx); z += e; return e; });
    for (let j = 0; j < m; j++) for (let c = 0; c < dv; c++) out[i * dv + c] += (p[j] / z) * v[j * dv + c];
  }
  return out;
}

const maxRel = (a, b) => a.reduce((e, t, i) => Math.max(e, Math.abs(t - b[i]) / Math.max(1, Math.abs(b[i]))), 0);

describe('attention in JS', () => {
  it('lists the attention kernels: exact sdpa and the linear ones', () => {
    const ks = ss.kernels('attention');
    expect(ks.filter((k) => k.role === 'exact_attention').map((k) => k.name)).toEqual(['sdpa']);
    expect(ks.filter((k) => k.role === 'linear_attention').map((k) => k.name)).toEqual(expect.arrayContaining(['cosformer', 'galerkin', 'performer', 'trig', 'hrf']));
  });

  it('sdpa with softmax equals a float64 reference, with masks', () => {
    const x = attentionExample('random', 24, 5);
    const mask = new Uint8Array(24).fill(1);
    mask[3] = 0;
    for (const causal of [false, true]) {
      const r = ss.attend('sdpa', x, { causal }, { keyMask: mask, attention: true });
      expect(maxRel(r.output, refSdpa(x, 1 / 4, causal, mask))).toBeLessThan(2e-5);
      for (let i = 0; i < 24; i++) {
        expect(r.attention[i * 24 + 3]).toBe(0);
        if (causal) for (let j = i + 1; j < 24; j++) expect(r.attention[i * 24 + j]).toBe(0);
      }
    }
  });

  it('scalar and SIMD builds agree within 1e-5 for every kernel', () => {
    const x = attentionExample('random', 33, 2);
    for (const k of ss.kernels('attention')) {
      const a = ss.attend(k.name, x, { heads: 2 }, { normalizer: 'entmax15' }).output;
      const b = scalar.attend(k.name, x, { heads: 2 }, { normalizer: 'entmax15' }).output;
      expect(maxRel(a, b), k.name).toBeLessThan(1e-5);
    }
  });

  it('the linear forms output their attention matrix times V', () => {
    const x = attentionExample('random', 20, 9);
    for (const name of ['cosformer', 'galerkin', 'performer']) {
      const r = ss.attend(name, x, {}, { attention: true });
      const av = new Float64Array(20 * 16);
      for (let i = 0; i < 20; i++) for (let j = 0; j < 20; j++) for (let c = 0; c < 16; c++) av[i * 16 + c] += r.attention[i * 20 + j] * x.v[j * 16 + c];
      expect(maxRel(r.output, av), name).toBeLessThan(1e-4);
    }
  });

  it('measures: a uniform row has entropy ln m; the copy rows find their source', () => {
    const { rows, headDistance } = ss.attentionMeasures(new Float32Array(8).fill(0.25), 2, 1, 4);
    expect(rows[0]).toBeCloseTo(Math.log(4), 6);
    expect(Array.from(headDistance)).toEqual([0, 0, 0, 0]);
    const ex = attentionExample('copy', 41, 4);
    const r = ss.attend('sdpa', ex, { scale: 1 }, { attention: true });
    for (let i = 0; i < ex.n; i++) {
      const src = ex.copyOf(i);
      if (src < 0) continue;
      const row = r.attention.subarray(i * ex.n, (i + 1) * ex.n);
      expect(row.indexOf(Math.max(...row))).toBe(src);
    }
  });

  it('bad input throws an Error that names the argument', () => {
    const x = attentionExample('random', 8, 1);
    const arg = (f) => { try { f(); } catch (e) { return e.argument; } return null; };
    expect(arg(() => ss.attend('sdpa', { ...x, q: Array.from(x.q) }))).toBe('q');
    expect(arg(() => ss.attend('sdpa', { ...x, k: new Float32Array(8 * 15) }))).toBe('k');
    expect(arg(() => ss.attend('sdpa', x, { heads: 3 }))).toBe('params.heads');
    expect(arg(() => ss.attend('sdpa', x, {}, { keyMask: new Uint8Array(3) }))).toBe('options.keyMask');
    expect(arg(() => ss.attend('sdpa', x, {}, { normalizer: 'log_softmax' }))).toBe('options.normalizer');
    expect(arg(() => ss.attend('sdpa', x, {}, { keyMask: new Uint8Array(8) }))).toBe('options.keyMask');
    expect(arg(() => ss.attend('sdpa', { ...x, n: 2.5 }))).toBe('n');
    expect(arg(() => ss.attend('performer', x, { features: 0 }))).toBe('params.features');
    expect(arg(() => ss.attend('sdpa', { ...x, q: Float32Array.from(x.q, (t, i) => (i === 5 ? NaN : t)) }))).toBe('q');
    expect(arg(() => ss.attend('softmax', x))).toBe('kernel');
  });
});

describe('softscope attend (CLI)', () => {
  it('--json prints the output rows, the attention per head and the measures', async () => {
    const r = await run(['attend', 'sdpa', '--example', 'sentence', '--normalizer', 'sparsemax', '--param', 'heads=2', '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(Object.keys(j)).toEqual(['kernel', 'impl', 'build', 'normalizer', 'output', 'attention', 'metrics']);
    expect(j.attention.length).toBe(2);
    expect(j.output.length).toBe(7);
    for (const head of j.attention) for (const row of head) expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
    const zeros = j.attention[0].flat().filter((v) => v === 0).length / 49;
    expect(j.metrics.zero_fraction[0]).toBeCloseTo(zeros, 5);
  });

  it('normalizer parameters go by name; bad ones exit 2', async () => {
    const a = await run(['attend', 'sdpa', '--example', 'random', '--n', '16', '--normalizer', 'entmax_bisect', '--param', 'alpha=1.5', '--json']);
    expect(a.code).toBe(0);
    const b = await run(['attend', 'sdpa', '--example', 'random', '--normalizer', 'entmax_bisect', '--param', 'alpha=-1']);
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/alpha/);
    const c = await run(['attend', 'galerkin', '--example', 'random', '--normalizer', 'softmax']);
    expect(c.code).toBe(2);
    const d = await run(['attend', 'sdpa', '--input', '{"q": [[1, 2]], "k": [[1]], "v": [[1]]}']);
    expect(d.code).toBe(2);
  });
});
