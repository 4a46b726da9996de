// The random-feature attention kernels through the JS API (the registry's
// kernels with kernel_estimate: performer, trig, hrf): ss.attentionKernelEstimate
// is unbiased (its mean over seeds is exp(s q.k), computed here in float64,
// within 4.5 standard errors per pair, for every head), the same on both
// builds within float rounding; attention approaches sdpa with softmax as the
// feature count grows; a non-positive normalizer estimate is an Error naming
// params.scale; kernels without random features are refused by name.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { attentionExample } from '../../wasm/analysis/attention-examples.js';
import { rng } from './support/reference.js';

let ss, scalar, rf;
beforeAll(async () => {
  ss = await createSoftscope({ impl: 'simd' });
  scalar = await createSoftscope({ impl: 'scalar' });
  rf = ss.kernels('attention').filter((k) => k.kernel_estimate).map((k) => k.name);
});

function gaussian(len, seed, sd) {
  const r = rng(seed);
  return Float32Array.from({ length: len }, () => sd * Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r()));
}

// exp(s q_i . k_j) over head h's columns, in float64.
function softmaxKernel(x, heads, h, i, j, s) {
  const d = x.q.length / x.n, dh = d / heads;
  let t = 0;
  for (let c = h * dh; c < (h + 1) * dh; c++) t += x.q[i * d + c] * x.k[j * d + c];
  return Math.exp(s * t);
}

describe('random-feature kernels', () => {
  it('are the registry\'s attention kernels that say kernel_estimate: performer, trig, hrf', () => {
    expect(rf).toEqual(expect.arrayContaining(['performer', 'trig', 'hrf']));
    for (const name of rf) expect(ss.kernel(name, 'attention').role).toBe('linear_attention');
  });

  it('the estimate is unbiased: its mean over 400 seeds is exp(s q.k) within 4.5 standard errors, for each pair and head', () => {
    const n = 3, m = 4, d = 8, heads = 2, seeds = 400;
    const x = { q: gaussian(n * d, 1, 0.6), k: gaussian(m * d, 2, 0.6), n, m };
    const s = 1 / Math.sqrt(d / heads);
    for (const name of rf) {
      for (const orthogonal of [0, 1]) {
        const sum = new Float64Array(heads * n * m), sq = new Float64Array(heads * n * m);
        for (let seed = 0; seed < seeds; seed++) {
          const est = ss.attentionKernelEstimate(name, x, { heads, features: 16, seed, orthogonal });
          expect(est.length).toBe(heads * n * m);
          for (let t = 0; t < est.length; t++) sum[t] += est[t], sq[t] += est[t] * est[t];
        }
        for (let h = 0; h < heads; h++)
          for (let i = 0; i < n; i++)
            for (let j = 0; j < m; j++) {
              const t = (h * n + i) * m + j, mean = sum[t] / seeds;
              const se = Math.sqrt(Math.max(0, sq[t] / seeds - mean * mean) / seeds);
              const want = softmaxKernel(x, heads, h, i, j, s);
              expect(Math.abs(mean - want), `${name} orthogonal=${orthogonal} head ${h} (${i}, ${j}): ${mean} vs ${want} ± ${se}`)
                .toBeLessThanOrEqual(4.5 * se + 1e-9);
            }
      }
    }
  });

  it('the scalar and SIMD builds estimate the same kernel (float rounding)', () => {
    const x = { q: gaussian(5 * 16, 3, 0.5), k: gaussian(7 * 16, 4, 0.5), n: 5, m: 7 };
    for (const name of rf) {
      const a = ss.attentionKernelEstimate(name, x, { seed: 3 }), b = scalar.attentionKernelEstimate(name, x, { seed: 3 });
      for (let t = 0; t < a.length; t++) expect(Math.abs(a[t] - b[t])).toBeLessThanOrEqual(1e-5 * Math.abs(b[t]) + 1e-7);
    }
  });

  it('attention approaches sdpa with softmax as the features grow (16, 64, 256: 1.5x lower each time)', () => {
    const ex = attentionExample('random', 48, 3);
    const x = { ...ex, q: ex.q.map((v) => 0.4 * v), k: ex.k.map((v) => 0.4 * v) };
    const ref = ss.attend('sdpa', x).output;
    const relErr = (o) => {
      let e = 0, r = 0;
      for (let t = 0; t < o.length; t++) e += (o[t] - ref[t]) ** 2, r += ref[t] ** 2;
      return Math.sqrt(e / r);
    };
    for (const name of rf) {
      const k = ss.kernel(name, 'attention');
      const errs = [16, 64, 256].map((F) => {
        let tot = 0;
        for (let seed = 0; seed < 6; seed++) {
          // every kind of projection at F (hrf: its positive and its trigonometric ones)
          const p = { seed };
          for (const q of k.params) if (q.name.endsWith('features') && q.max >= 256) p[q.name] = F;
          tot += relErr(ss.attend(name, x, p).output);
        }
        return tot / 6;
      });
      // measured: performer 0.27, 0.15, 0.085; trig 0.11, 0.054, 0.028; hrf 0.084, 0.044, 0.025
      expect(errs[1], `${name} ${errs}`).toBeLessThan(errs[0] / 1.5);
      expect(errs[2], `${name} ${errs}`).toBeLessThan(errs[1] / 1.5);
    }
  });

  it('a non-positive normalizer estimate names params.scale; other kernels are refused by name', () => {
    const ex = attentionExample('random', 32, 1);
    const arg = (f) => { try { f(); } catch (e) { return [e.argument, e.code, e.message]; } return null; };
    const [a, code, msg] = arg(() => ss.attend('trig', ex, { scale: 1, features: 4 }));
    expect([a, code]).toEqual(['params.scale', 'SS_ERR_DOMAIN']);
    expect(msg).toMatch(/params\.scale = 1 .*not a positive float/);
    const [b, code2, msg2] = arg(() => ss.attentionKernelEstimate('galerkin', ex));
    expect([b, code2]).toEqual(['kernel', 'SS_ERR_UNSUPPORTED']);
    for (const name of rf) expect(msg2).toContain(name);
    expect(arg(() => ss.attentionKernelEstimate('hrf', { ...ex, k: new Float32Array(31 * 16) }))[0]).toBe('k');
    expect(arg(() => ss.attentionKernelEstimate('hrf', ex, { heads: 3 }))[0]).toBe('params.heads');
    expect(arg(() => ss.attentionKernelEstimate('hrf', ex, { angle_features: 0 }))[0]).toBe('params.angle_features');
    expect(arg(() => ss.attentionKernelEstimate('hrf', { ...ex, q: Float32Array.from(ex.q, (v, i) => (i === 9 ? NaN : v)) }))[0]).toBe('q');
  });
});
