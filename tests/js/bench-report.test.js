// The benchmark's accuracy column (tests/bench/run.js): each normalizer is
// compared with its own float64 reference (wasm/analysis/reference.js) or
// gets no error at all. Regression: every kernel without a softmax
// reference used to be compared with softmax's, so bench.txt showed
// stablemax 7.1e+5, vq_softmax 5.5e+7 and topk_softmax 6.6e+2 as "max rel
// err". Runs the harness itself (SIMD build, no peers, n = 1024, rounds of
// a millisecond; no timing is asserted).
import { describe, it, expect } from 'vitest';
import { fileURLToPath } from 'node:url';
import { loadBuilds } from '../bench/raw.js';
import { runFamilies } from '../bench/run.js';

const DIST = fileURLToPath(new URL('../../wasm/dist', import.meta.url));
const ST = { rounds: 1, roundMs: 1, warmupMs: 0, minCalls: 1 };

describe('bench report: max rel err', () => {
  it('regress_bench_error_against_own_reference: kernels with no float64 reference get no error; those with one are within 2e-6', async () => {
    const builds = await loadBuilds(DIST, ['simd']);
    const fams = await runFamilies({ builds, peers: { versions: {} } },
      { families: ['normalizer'], kernels: ['stablemax', 'vq_softmax', 'topk_softmax', 'sparsemax', 'softmax_temperature'], sizes: [1024], clock: 'wall' },
      ST, () => {});
    const err = Object.fromEntries(fams.normalizer.rows.map((r) => [r.kernel, r.results.simd.max_rel_err]));
    expect(Object.keys(err).sort()).toEqual(['softmax_temperature', 'sparsemax', 'stablemax', 'topk_softmax', 'vq_softmax']);
    for (const k of ['stablemax', 'vq_softmax', 'topk_softmax']) expect(err[k], k).toBeUndefined();
    // against their own references (sparsemax's sort, softmax of x / 0.37)
    for (const k of ['sparsemax', 'softmax_temperature']) expect(err[k], k).toBeLessThanOrEqual(2e-6);
  });
});
