// Loading: the package entry resolves by name, 'auto' / 'simd' / 'scalar'
// report the build they loaded, SIMD detection is a real engine check, and
// the registry read out of the wasm is the one the C library holds.
import { describe, it, expect, vi, afterEach } from 'vitest';
import { readFile } from 'node:fs/promises';
import { createSoftscope, detectSimd, STATUS } from 'softscope';
import * as direct from '../../wasm/api/index.js';
import { SIMD_PROBE } from '../../wasm/api/simd-detect.js';

afterEach(() => vi.restoreAllMocks());

describe('loading', () => {
  it("the package self-reference 'softscope' is wasm/api/index.js", () => {
    expect(createSoftscope).toBe(direct.createSoftscope);
  });

  it('detectSimd is the engine answer for a v128 module (Node 20 has SIMD128)', () => {
    expect(detectSimd()).toBe(true);
    expect(WebAssembly.validate(SIMD_PROBE)).toBe(true);
    // The same bytes with the v128 result type replaced by i32 no longer
    // validate: the probe really exercises SIMD typing.
    const broken = Uint8Array.from(SIMD_PROBE);
    broken[14] = 0x7f;
    expect(WebAssembly.validate(broken)).toBe(false);
  });

  it.each([
    ['auto', 'simd'],
    ['simd', 'simd'],
    ['scalar', 'scalar'],
  ])("impl '%s' loads the %s build", async (impl, want) => {
    const ss = await createSoftscope({ impl });
    expect(ss.impl).toBe(want);
    // ('auto': the relaxed build once the engine validates relaxed SIMD, api-builds.test.js)
    expect(ss.build).toBe(impl === 'auto' && direct.detectRelaxedSimd() ? 'relaxed' : want);
    expect(ss.simdSupported).toBe(true);
    // the header's SS_VERSION, which scripts/gen-registry.js holds package.json to
    expect(ss.version).toBe(JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')).version);
    expect(ss.maxN).toBe(2 ** 26);
  });

  it('the scalar build really is the scalar module (its registry default is scalar)', async () => {
    const bytes = await readFile(new URL('../../wasm/dist/softscope-scalar.wasm', import.meta.url));
    const ss = await createSoftscope({ wasm: bytes });
    expect(ss.impl).toBe('scalar');
    await expect(createSoftscope({ impl: 'simd', wasm: bytes })).rejects.toThrow(/scalar build/);
  });

  it("without engine SIMD, 'auto' falls back to scalar and 'simd' is an Error", async () => {
    vi.spyOn(WebAssembly, 'validate').mockReturnValue(false);
    expect(detectSimd()).toBe(false);
    const ss = await createSoftscope({ impl: 'auto' });
    expect(ss.impl).toBe('scalar');
    expect(ss.simdSupported).toBe(false);
    const err = await createSoftscope({ impl: 'simd' }).catch((e) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err.message).toMatch(/SIMD128/);
    expect(err.status).toBe(STATUS.SS_ERR_UNSUPPORTED);
  });

  it('rejects an unknown impl and a bad wasm option, naming them', async () => {
    await expect(createSoftscope({ impl: 'avx' })).rejects.toThrow(/options\.impl/);
    await expect(createSoftscope({ wasm: 42 })).rejects.toThrow(/options\.wasm/);
  });

  it('accepts a URL, a path and a compiled module as the wasm override', async () => {
    const url = new URL('../../wasm/dist/softscope-scalar.wasm', import.meta.url);
    expect((await createSoftscope({ wasm: url })).impl).toBe('scalar');
    expect((await createSoftscope({ wasm: 'wasm/dist/softscope-scalar.wasm' })).impl).toBe('scalar');
    const mod = await WebAssembly.compile(await readFile(url));
    expect((await createSoftscope({ wasm: mod })).impl).toBe('scalar');
    expect((await createSoftscope({ impl: 'scalar', wasm: { scalar: url } })).impl).toBe('scalar');
  });
});

describe('registry', () => {
  it('lists every kernel the C registry holds, with its descriptor pointer order', async () => {
    const ss = await createSoftscope();
    const all = ss.kernels();
    expect(all.length).toBe(ss.exports.ss_kernel_count());
    expect(all.map((k) => k.name)).toContain('softmax');
    for (const k of all) {
      expect(typeof k.summary).toBe('string');
      expect(k.impls).toContain('scalar');
      expect(k.impls).toContain('simd');
      for (const p of k.params) {
        expect(typeof p.name).toBe('string');
        expect(['float', 'int', 'bool']).toContain(p.type);
        expect(Number.isFinite(p.default)).toBe(true);
      }
    }
    expect(Object.isFrozen(all[0])).toBe(true);
  });

  it('filters by family, and kernel() finds one or names the known ones', async () => {
    const ss = await createSoftscope();
    const norms = ss.kernels('normalizer');
    expect(norms.length).toBeGreaterThan(0);
    expect(norms.every((k) => k.family === 'normalizer')).toBe(true);
    expect(ss.kernel('softmax').output).toBe('probs');
    expect(ss.kernel('softmax', 'normalizer').name).toBe('softmax');
    expect(() => ss.kernel('nope')).toThrow(/unknown kernel "nope"; known: .*softmax/);
    expect(() => ss.kernels('fruit')).toThrow(/unknown family/);
  });

  it('the scalar build registers no SIMD entry points (impls lists what the build can run)', async () => {
    const ss = await createSoftscope({ wasm: new URL('../../wasm/dist/softscope-scalar.wasm', import.meta.url) });
    for (const k of ss.kernels()) expect(k.impls).toEqual(['scalar']);
  });
});
