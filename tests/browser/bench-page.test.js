// `make bench-browser`'s page loads and runs: softscope's three builds, the
// API and the peers loaded in the page (tfjs-backend-wasm, onnxruntime-web)
// each give a time for softmax at n = 1024, the kernel's output is within
// the accuracy bound of float64 (the harness's own error column), the rows
// table is run or skipped with a note, and the text table is well formed.
// No timing is asserted (speed lives in make bench-browser); the rounds are
// a few milliseconds.
import { describe, it, expect } from 'vitest';
import { runBrowserBench, formatBrowserBench } from '../bench/bench-browser.js';

describe('bench-browser page', () => {
  it('runs the softmax table in Chromium next to tfjs and ort-web, and formats it', async () => {
    const res = await runBrowserBench({ quick: true, families: ['normalizer', 'rows'], kernels: ['softmax'], sizes: { normalizer: [1024] }, chromiumArgs: [] },
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
    const text = formatBrowserBench(res);
    const lines = text.split('\n');
    const head = lines.findIndex((l) => /^kernel\s+n\s+relaxed\s+simd\s+scalar\s+api/.test(l));
    expect(head, text).toBeGreaterThan(0);
    expect(lines[head + 1]).toMatch(/^softmax\s+1024(\s+\S+){10,}/);
    expect(text).toMatch(/softmax kernel \(relaxed build\) vs tfjs-backend-wasm/);
  });
});
