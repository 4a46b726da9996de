// The three wasm builds through createSoftscope: 'relaxed' loads the
// relaxed-SIMD build (in Node 20 after turning on V8's relaxed-SIMD flag),
// 'auto' picks relaxed, then SIMD128, then scalar by what the engine
// validates, ss.build says which build runs, and everything pinned bit for
// bit (seeded draws, stochastic rounding, the Philox streams) is identical in
// all three builds, while the relaxed kernels agree with scalar within
// their stated bound.
import { describe, it, expect, vi, beforeAll, afterEach } from 'vitest';
import { createSoftscope, detectSimd, detectRelaxedSimd, STATUS } from 'softscope';
import { RELAXED_PROBE, SIMD_PROBE } from '../../wasm/api/simd-detect.js';
import { randomLogits, randomPositive } from './support/reference.js';

afterEach(() => vi.restoreAllMocks());

const same = (u, v) => (u == null ? v == null : Buffer.from(u.buffer, u.byteOffset, u.byteLength).equals(Buffer.from(v.buffer, v.byteOffset, v.byteLength)));

let builds;
beforeAll(async () => {
  builds = {
    relaxed: await createSoftscope({ impl: 'relaxed' }),
    simd: await createSoftscope({ impl: 'simd' }),
    scalar: await createSoftscope({ impl: 'scalar' }),
  };
});

describe('loading a build', () => {
  it("impl 'relaxed' turns on relaxed SIMD in Node 20 and loads the relaxed build", () => {
    expect(detectRelaxedSimd()).toBe(true); // the flag is on now (beforeAll)
    const { relaxed, simd, scalar } = builds;
    expect([relaxed.build, simd.build, scalar.build]).toEqual(['relaxed', 'simd', 'scalar']);
    expect([relaxed.impl, simd.impl, scalar.impl]).toEqual(['simd', 'simd', 'scalar']);
    expect(relaxed.relaxedSupported).toBe(true);
    // kernels that use relaxed ops there state their bound
    expect(relaxed.kernel('softmax').relaxed_simd).toMatch(/\d/);
  });

  it('the relaxed probe uses a relaxed op: the same bytes with it replaced by a SIMD128 op are plain SIMD', () => {
    expect(WebAssembly.validate(RELAXED_PROBE)).toBe(true);
    // f32x4.relaxed_madd (0xfd 0x85 0x02) -> v128.bitselect (0xfd 0x52) + nop
    const plain = Uint8Array.from(RELAXED_PROBE);
    const at = plain.findIndex((b, i) => b === 0xfd && plain[i + 1] === 0x85 && plain[i + 2] === 0x02);
    expect(at).toBeGreaterThan(0);
    plain.set([0xfd, 0x52, 0x01], at);
    expect(WebAssembly.validate(plain)).toBe(true);
    expect(WebAssembly.validate(SIMD_PROBE)).toBe(true);
  });

  it("'auto' picks relaxed where relaxed SIMD validates, then SIMD128, then scalar", async () => {
    expect((await createSoftscope()).build).toBe('relaxed');
    const real = WebAssembly.validate.bind(WebAssembly);
    const spy = vi.spyOn(WebAssembly, 'validate').mockImplementation((b) => b !== RELAXED_PROBE && real(b));
    expect(detectRelaxedSimd()).toBe(false);
    const ss = await createSoftscope({ impl: 'auto' });
    expect([ss.build, ss.relaxedSupported, ss.simdSupported]).toEqual(['simd', false, true]);
    spy.mockReturnValue(false);
    expect(detectSimd()).toBe(false);
    const sc = await createSoftscope({ impl: 'auto' });
    expect([sc.build, sc.impl]).toEqual(['scalar', 'scalar']);
  });

  it("'auto' with one module per build picks the best one given", async () => {
    const url = (b) => new URL(`../../wasm/dist/softscope-${b}.wasm`, import.meta.url);
    expect((await createSoftscope({ wasm: { simd: url('simd'), scalar: url('scalar') } })).build).toBe('simd');
    expect((await createSoftscope({ wasm: { relaxed: url('relaxed'), simd: url('simd') } })).build).toBe('relaxed');
    expect((await createSoftscope({ impl: 'scalar', wasm: { scalar: url('scalar') } })).build).toBe('scalar');
  });

  it("'relaxed' is an Error naming options.impl where the engine cannot run it, or on another build's module", async () => {
    vi.spyOn(WebAssembly, 'validate').mockImplementation((b) => b !== RELAXED_PROBE);
    const err = await createSoftscope({ impl: 'relaxed' }).catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toMatch(/impl 'relaxed'.*relaxed SIMD/);
    expect(err.status).toBe(STATUS.SS_ERR_UNSUPPORTED);
    expect(err.argument).toBe('options.impl');
    vi.restoreAllMocks();
    const simdUrl = new URL('../../wasm/dist/softscope-simd.wasm', import.meta.url);
    await expect(createSoftscope({ impl: 'relaxed', wasm: simdUrl })).rejects.toThrow(/loaded module is the simd build/);
  });
});

describe('the same bits in every build', () => {
  const input = (k, n, seed) => (k.input === 'logits' ? randomLogits(n, seed, 8) : randomPositive(n, seed, 0.2, 2));

  it('seeded draws: probs, indices and samples of every sampler are bit-identical in relaxed, simd and scalar', () => {
    const { relaxed, simd, scalar } = builds;
    for (const k of relaxed.kernels('sampler')) {
      for (const n of [7, 1000, 4099]) {
        const x = input(k, n, n), params = { seed: 11, draws: n > 1000 ? 3 : 50 };
        for (const q of k.params) if (q.n_bound === 'le' && q.default > n) params[q.name] = n;
        const r = relaxed.sample(k.name, x, params), s = simd.sample(k.name, x, params), c = scalar.sample(k.name, x, params);
        for (const f of ['probs', 'indices', 'samples']) {
          expect(same(r[f], s[f]), `${k.name} n=${n}: ${f}, relaxed vs simd`).toBe(true);
          expect(same(r[f], c[f]), `${k.name} n=${n}: ${f}, relaxed vs scalar`).toBe(true);
        }
      }
    }
  });

  it('the Philox streams, categorical draws and stochastic rounding are bit-identical too', () => {
    const { relaxed, simd, scalar } = builds;
    const w = randomPositive(1000, 4, 0.1, 3), v = randomLogits(4096, 9, 3);
    for (const ss of [simd, scalar]) {
      expect(same(relaxed.uniform(4096, { seed: 3, stream: 1 }), ss.uniform(4096, { seed: 3, stream: 1 }))).toBe(true);
      expect(same(relaxed.gumbel(4096, { seed: 3 }), ss.gumbel(4096, { seed: 3 }))).toBe(true);
      expect(same(relaxed.normal(4096, { seed: 5 }), ss.normal(4096, { seed: 5 }))).toBe(true);
      expect(same(relaxed.categorical(w, { seed: 8, draws: 500 }), ss.categorical(w, { seed: 8, draws: 500 }))).toBe(true);
      const q = (s) => s.quantize('uniform', v, { bits: 3, rounding: 'stochastic', seed: 1 });
      expect(same(q(relaxed).codes, q(ss).codes)).toBe(true);
    }
  });

  it('softmax in the relaxed build agrees with scalar within its stated bound (2e-6 relative)', () => {
    const x = randomLogits(100003, 2, 10);
    const a = builds.relaxed.normalize('softmax', x), b = builds.scalar.normalize('softmax', x);
    let worst = 0;
    for (let i = 0; i < a.length; i++) if (b[i] >= 1e-30) worst = Math.max(worst, Math.abs(a[i] - b[i]) / b[i]);
    expect(worst).toBeLessThanOrEqual(4e-6); // each within 2e-6 of float64
  });
});
