// Losses through the JS API and the CLI, registry-driven: every loss kernel
// is >= 0, its gradient sums to 0 (p and e_t both sum to 1) and matches a
// directional finite difference of the loss itself; cross-entropy equals the
// float64 formula LSE(x) - x_t; the Fenchel-Young losses are exactly 0 on a
// one-hot prediction; bad targets and inputs throw errors naming the argument.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { randomLogits, randomUnit, directionalFD, dot, refSoftmax, refLogSumExp } from './support/reference.js';
import { runCli } from './support/run-cli.js';


const run = runCli;

let simd, scalar;
beforeAll(async () => {
  simd = await createSoftscope({ impl: 'simd' });
  scalar = await createSoftscope({ impl: 'scalar' });
});

const losses = () => simd.kernels('loss');

describe('loss', () => {
  it('the registry has the four losses of the issue', () => {
    const names = losses().map((k) => k.name);
    for (const n of ['cross_entropy', 'sparsemax_loss', 'entmax15_loss', 'entmax_bisect_loss']) expect(names).toContain(n);
    for (const k of losses()) expect(k.params[0].name).toBe('target');
  });

  it('every loss: L >= 0, sum(grad) = 0, grad matches a directional finite difference (both builds)', () => {
    // Piecewise-smooth losses: L is C1 (its gradient p - e_t is continuous),
    // so a central difference with h = 2e-2 is accurate to O(h^2 |dp/dx|).
    const x = randomLogits(17, 5, 4), v = randomUnit(17, 6);
    for (const k of losses()) {
      for (const ss of [simd, scalar]) {
        for (const target of [0, 7, 16]) {
          const { loss, grad } = ss.loss(k.name, x, { target });
          expect(loss).toBeGreaterThanOrEqual(0);
          let s = 0;
          for (const g of grad) s += g;
          expect(Math.abs(s)).toBeLessThanOrEqual(1e-5);
          const fd = directionalFD((z) => ss.loss(k.name, z, { target }).loss, x, v);
          expect(Math.abs(dot(grad, v) - fd), `${k.name} target ${target}`).toBeLessThanOrEqual(2e-3);
        }
      }
    }
  });

  it('cross_entropy equals LSE(x) - x_t and its gradient softmax(x) - e_t', () => {
    const x = randomLogits(40, 9, 10);
    const p = refSoftmax(x), lse = refLogSumExp(x);
    for (const ss of [simd, scalar]) {
      const { loss, grad } = ss.loss('cross_entropy', x, { target: 3 });
      expect(Math.abs(loss - (lse - x[3]))).toBeLessThanOrEqual(1e-6 * (1 + lse));
      grad.forEach((g, i) => expect(Math.abs(g - (p[i] - (i === 3 ? 1 : 0)))).toBeLessThanOrEqual(2e-6));
    }
  });

  it('Fenchel-Young losses are exactly 0 with a zero gradient when the prediction is one-hot', () => {
    const x = Float32Array.from([-0.5, 0, 4, -1, 0.25]); // margin 3.75: one-hot for alpha >= 1.3
    for (const name of ['sparsemax_loss', 'entmax15_loss', 'entmax_bisect_loss']) {
      const { loss, grad } = simd.loss(name, x, { target: 2 });
      expect(loss).toBe(0);
      expect(Array.from(grad)).toEqual([0, 0, 0, 0, 0]);
    }
  });

  it('bad input throws an error naming the argument', () => {
    const x = Float32Array.from([1, 2, 3]);
    expect(() => simd.loss('cross_entropy', x, { target: 3 })).toThrow(/params\.target = 3 must be < 3/);
    expect(() => simd.loss('cross_entropy', x, { target: -1 })).toThrow(expect.objectContaining({ argument: 'params.target' }));
    expect(() => simd.loss('cross_entropy', x, { target: 0.5 })).toThrow(/integer/);
    expect(() => simd.loss('cross_entropy', [1, 2, 3], { target: 0 })).toThrow(expect.objectContaining({ argument: 'x' }));
    expect(() => simd.loss('cross_entropy', Float32Array.from([1, -Infinity]), { target: 1 }))
      .toThrow(expect.objectContaining({ argument: 'x', code: 'SS_ERR_DOMAIN' }));
    expect(() => simd.loss('cross_entropy', Float32Array.from([1, NaN]), { target: 0 }))
      .toThrow(expect.objectContaining({ code: 'SS_ERR_NAN' }));
    expect(() => simd.loss('entmax_bisect_loss', x, { target: 0, alpha: 1 })).toThrow(expect.objectContaining({ argument: 'params.alpha' }));
    expect(() => simd.loss('softmax', x, { target: 0 })).toThrow(expect.objectContaining({ code: 'SS_ERR_FAMILY' }));
  });
});

describe('softscope loss (CLI)', () => {
  it('--json prints {kernel, impl, output: loss, grad}', async () => {
    const r = await run(['loss', 'sparsemax_loss', '--input', '[-2, 0, 0.5]', '--param', 'target=2', '--json']);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expect(Object.keys(j).sort()).toEqual(['build', 'grad', 'impl', 'kernel', 'output']);
    // sparsemax([-2, 0, 0.5]) = [0, 0.25, 0.75] (Martins & Astudillo 2016):
    // L = sum p (x - x_t) + (1 - sum p^2) / 2 = -0.125 + 0.1875 = 0.0625
    expect(j.kernel).toBe('sparsemax_loss');
    expect(Math.abs(j.output - 0.0625)).toBeLessThanOrEqual(1e-6);
    expect(j.grad.map((g) => Math.round(g * 1e6) / 1e6)).toEqual([0, 0.25, -0.25]);
  });

  it('a missing or bad target exits 2 with a message', async () => {
    const a = await run(['loss', 'cross_entropy', '--input', '[1, 2]']);
    expect(a.code).toBe(2);
    expect(a.err).toMatch(/^softscope: .*target/);
    const b = await run(['loss', 'cross_entropy', '--input', '[1, 2]', '--param', 'target=5']);
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/--param target = 5 must be < 2/);
    const c = await run(['loss', 'nope', '--input', '[1, 2]', '--param', 'target=0']);
    expect(c.code).toBe(2);
    expect(c.err).toMatch(/unknown kernel "nope"/);
  });
});
