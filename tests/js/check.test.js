// `softscope check` (analysis/check.js) fails when a kernel is wrong: a build
// whose softmax is off by one part in 10^4, or whose sparsemax accepts NaN,
// is reported with the kernel and the check, and the command's exit status
// follows the failures.
import { describe, it, expect, beforeAll } from 'vitest';
import { createSoftscope } from 'softscope';
import { runCheck } from '../../wasm/analysis/check.js';
import { command as check } from '../../wasm/cli/check.js';

let scalar, simd;
beforeAll(async () => {
  scalar = await createSoftscope({ impl: 'scalar' });
  simd = await createSoftscope({ impl: 'simd' });
});

// An instance whose kernel `name` is broken: wrong(run, x) returns its
// output, where run() is the real call.
function broken(ss, name, wrong) {
  return new Proxy(ss, {
    get(t, prop) {
      if (prop === 'normalize') return (k, x, p) => (k === name ? wrong(() => t.normalize(k, x, p), x) : t.normalize(k, x, p));
      const v = t[prop];
      return typeof v === 'function' ? v.bind(t) : v;
    },
  });
}

describe('softscope check', () => {
  it('passes on the real builds', () => {
    const r = runCheck({ scalar, simd });
    expect(r.failures).toEqual([]);
    expect(r.rows).toHaveLength(scalar.kernels().length);
  });

  it('a softmax off by 1e-4 fails scalar-vs-SIMD, the references and the golden vectors', () => {
    const r = runCheck({ scalar: broken(scalar, 'softmax', (run) => run().map((v, i) => (i === 0 ? v * (1 + 1e-4) : v))), simd });
    const bad = r.failures.filter((f) => f.kernel === 'softmax').map((f) => f.check);
    expect(bad).toContain('simd');
    expect(bad).toContain('reference');
    expect(r.failures.every((f) => f.kernel === 'softmax')).toBe(true);
  });

  it('a normalizer that stops summing to one fails the sum check', () => {
    const r = runCheck({ scalar: broken(scalar, 'entmax_bisect', (run) => run().map((v) => v * 0.99)), simd: null });
    expect(r.failures.some((f) => f.kernel === 'entmax_bisect' && f.check === 'sum')).toBe(true);
  });

  it('a kernel that accepts NaN fails the errors check', () => {
    const r = runCheck({ scalar: broken(scalar, 'sparsemax', (run, x) => (x.some(Number.isNaN) ? new Float32Array(x.length) : run())), simd: null });
    expect(r.failures.some((f) => f.kernel === 'sparsemax' && f.check === 'errors')).toBe(true);
  });

  it('the command exits 1 when a check fails and 0 when none does', async () => {
    const out = [];
    const ctx = { out: (s) => out.push(s), err: () => {} };
    expect(await check.run(ctx, { opt: {} })).toBe(0);
    expect(out.at(-1)).toMatch(/ 0 failed/);
    out.length = 0;
    ctx.instances = { scalar: broken(scalar, 'log_softmax', (run) => run().map((v) => v + 1e-3)), simd };
    expect(await check.run(ctx, { opt: { failures: true } })).toBe(1);
    expect(out.some((l) => /^FAIL log_softmax (simd|reference): /.test(l))).toBe(true);
  });
});
