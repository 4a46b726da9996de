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
