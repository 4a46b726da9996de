// `make bench-browser`'s page loads and runs: softscope's three builds, the
// API and the peers loaded in the page (tfjs-backend-wasm, onnxruntime-web)
// each give a time for softmax at n = 1024, the kernel's output is within
// the accuracy bound of float64 (the harness's own error column), the rows
// table is run or skipped with a note, the batch top-p table (on a small
// batch, 2 x 8192) gives a time for the builds, the API, plain JS and
// transformers.js (its browser bundle, loaded in the page), and the text
// tables are well formed.
// No timing is asserted (speed lives in make bench-browser); the rounds are
// a few milliseconds.
import { describe, it, expect } from 'vitest';
import { runBrowserBench, formatBrowserBench } from '../bench/bench-browser.js';
import { computeTargets } from '../../scripts/bench/targets.js';

describe('bench-browser page', () => {
  it('runs the softmax, rows and batch top-p tables in Chromium next to tfjs, ort-web and transformers.js, and formats them', async () => {
    const res = await runBrowserBench({ quick: true, families: ['normalizer', 'rows', 'sampler_rows'], kernels: ['softmax', 'top_p'],
      sizes: { normalizer: [1024], sampler_rows: ['2x8192'] }, chromiumArgs: [] },
      { settings: { rounds: 1, roundMs: 2, warmupMs: 1, minCalls: 1 }, write: false });
    expect(res.errors).toEqual([]);
    expect(res.machine.browser.ua).toMatch(/Chrome\//);
    const [row] = res.families.normalizer.rows;
    expect(row).toMatchObject({ kernel: 'softmax', n: 1024 });
    for (const id of ['relaxed', 'simd', 'scalar', 'api', 'js', 'tfjs', 'tfjs+dataSync', 'ort-web']) {
      const ns = row.results[id]?.ns_per_elem;
      expect(ns > 0 && Number.isFinite(ns), `${id}: ${ns}`).toBe(true);
    }
    for (const id of ['relaxed', 'simd', 'scalar']) expect(row.results[id].max_rel_err, id).toBeLessThanOrEqual(2e-6);
    const rows = res.families.rows;
    expect(rows.note ? rows.rows : rows.rows.map((r) => r.shape)).toEqual(rows.note ? [] : ['4096x64', '8x32768']);
    // the rows table's peers in the page: tfjs on the 2-D tensor, onnxruntime-web on [rows, n]
    for (const r of rows.rows)
      for (const id of ['relaxed', 'api', 'api out', 'tfjs', 'tfjs+dataSync', 'ort-web'])
        expect(r.results[id]?.ns_per_elem > 0, `rows ${r.shape} ${id}`).toBe(true);
    const text = formatBrowserBench(res);
    const lines = text.split('\n');
    const head = lines.findIndex((l) => /^kernel\s+n\s+relaxed\s+simd\s+scalar\s+api/.test(l));
    expect(head, text).toBeGreaterThan(0);
    expect(lines[head + 1]).toMatch(/^softmax\s+1024(\s+\S+){10,}/);
    expect(text).toMatch(/softmax kernel \(relaxed build\) vs tfjs-backend-wasm/);

    const batch = res.families.sampler_rows;
    expect(batch.note).toBeUndefined();
    expect(batch.unit).toBe('us per batch');
    const [b] = batch.rows;
    expect(b).toMatchObject({ kernel: 'top_p', shape: '2x8192', n: 2 * 8192 });
    for (const id of ['relaxed', 'simd', 'scalar', 'api', 'js', 'transformers', 'transformers k50']) {
      const ns = b.results[id]?.ns_per_elem;
      expect(ns > 0 && Number.isFinite(ns), `${id}: ${ns}`).toBe(true);
    }
    expect(res.settings.peers.transformers).toMatch(/^\d+\.\d+/);
    const title = lines.findIndex((l) => l.startsWith('== top-p (p = 0.9) over the rows'));
    expect(title, text).toBeGreaterThan(head);
    expect(lines[title + 1]).toMatch(/^kernel\s+n\s+relaxed\s+simd\s+scalar\s+api\s+js\s+transformers\s+transformers k50\s+relaxed\/simd/);
    expect(lines[title + 2]).toMatch(/^top_p\s+2x8192(\s+\S+){10}\s+\S+x \((transformers|transformers k50)\)$/);
  });
});

// Issue 27: the training-step table (the three builds through createModel;
// no PyTorch in a page) and the time-to-95 % run of the Experiments view's
// stepper, here on a short state (10 steps, one normalizer, tested at
// trainMax only): the shape of what the page reports, no timing asserted.
describe('bench-browser page: training', () => {
  it('times a training step in each build and runs the experiments stepper to its test at trainMax', async () => {
    const over = { normalizers: ['softmax'], steps: 10, testMax: 16, examples: 16, quantizers: [] };
    const res = await runBrowserBench({ quick: true, families: ['training'], kernels: ['step'], chromiumArgs: [], experiment: true,
      experimentOptions: { over } }, { settings: { rounds: 1, roundMs: 2, warmupMs: 1, minCalls: 1 }, write: false });
    expect(res.errors).toEqual([]);
    const fam = res.families.training;
    expect(fam.unit).toBe('ms per step');
    const [row] = fam.rows;
    expect(row).toMatchObject({ kernel: 'step', shape: 'd64 n64 b32', n: 1 });
    expect(row.error).toBeUndefined();
    for (const id of ['relaxed', 'simd', 'scalar']) {
      const ns = row.results[id]?.ns_per_elem;
      expect(ns > 0 && Number.isFinite(ns), `${id}: ${ns}`).toBe(true);
    }
    expect(row.results.torch).toBeUndefined(); // PyTorch is the Node run's child process
    const e = res.experiment;
    expect(e.missing).toBeUndefined();
    expect(e).toMatchObject({ build: 'relaxed', steps: 10, trainN: [4, 16], stopped: 'tested' });
    expect(e.state).toMatchObject({ task: 'max_retrieval', ...over });
    expect(e.runs.map((r) => r.name)).toEqual(['softmax']);
    const [r] = e.runs;
    expect(r.diverged).toBeNull();
    expect(r.error).toBeNull();
    expect(r.testAccuracy >= 0 && r.testAccuracy <= 1, `${r.testAccuracy}`).toBe(true);
    expect(r.testedMs > 0).toBe(true);
    // reached: null, or a step of the 10 with its time before the test's
    if (r.reached !== null) expect(r.reached >= 1 && r.reached <= 10 && r.reachedMs <= r.testedMs).toBe(true);
    const text = formatBrowserBench(res);
    expect(text).toMatch(/\nstep\s+d64 n64 b32(\s+\S+){3}\s/);
    expect(text).toMatch(/== the default experiment \(Experiments view, max_retrieval, softmax, d = 32, 2 heads, 10 steps of batch 32, trainN = \[4,16\]\), relaxed build/);
    expect(text).toMatch(/\nsoftmax\s+(\d+|no)\s+\S+( s)?\s+\d+\.\d %\s+\d+\.\d\d s\n/);
    // its target: the slowest normalizer's time to reached (null, "not measured", when a run never reached 95 %)
    const [tg] = computeTargets({ families: {}, experiment: e }).filter((t) => t.family === 'experiment');
    expect(tg).toMatchObject({ want: '<= 20 s', values: [{ at: 'wall clock', value: r.reached === null ? null : r.reachedMs / 1000 }] });
    expect(tg.status).toBe(r.reached === null ? 'not measured' : r.reachedMs <= 20e3 ? 'met' : 'not met');
  });
});
