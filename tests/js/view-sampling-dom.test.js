// @vitest-environment happy-dom
// The Sampling view in a DOM, as the playground mounts it (the View around
// its figure): the figure shows the API's kept count and reaches N draws over
// several frames; moving a stage's slider or toggling a stage changes what is
// kept exactly as the API computes; the hard toggle puts the samples on the
// vertices; and a build without the filters, the Gumbel-Softmax kernels or
// the estimator export still draws, saying what is missing.
import { describe, it, expect, vi, beforeAll, afterEach } from 'vitest';
import { createSoftscope } from 'softscope';
import { sampling } from '../../wasm/views/sampling/index.js';
import { samplingLogits } from '../../wasm/views/sampling/logits.js';
import { runPipeline } from '../../wasm/views/sampling/decode.js';
import { SamplingView } from '../../web/src/views/sampling/View.jsx';
import { mountView, unmountAll, figureOf as fig, metric, slide, check } from './support/view-dom.js';
import { WASM } from './support/wasm-paths.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ wasm: WASM, impl: 'scalar' }); });
afterEach(unmountAll);
const mount = (hash, api = ss) => mountView(sampling, SamplingView, hash, api);

/** The real API reduced to the sampler core: temperature and categorical, no Gumbel kernels, no estimator export. */
function coreOnly(real) {
  const keep = new Set(['temperature', 'categorical']);
  return {
    enums: real.enums,
    kernels: (f) => (f === 'sampler' ? real.kernels('sampler').filter((k) => keep.has(k.name)) : real.kernels(f)),
    sample: (name, x, params) => {
      if (!keep.has(name)) throw new Error(`softscope.sample: unknown kernel "${name}"`);
      return real.sample(name, x, params);
    },
    normalize: (...a) => real.normalize(...a),
    categorical: (w, o) => real.categorical(w, o),
    estimatorStats: () => { throw new Error('softscope.estimatorStats: this wasm build does not export ss_estimator_stats (rebuild with `make wasm`)'); },
  };
}

describe('the Sampling view', () => {
  it("a small vocabulary: the API's kept count, the editor, N draws reached over several frames, M dots", async () => {
    const { root, box } = mount('#preset=planted_peak&n=16&draws=2000&m=120&temperature=0.6');
    const want = runPipeline(ss, samplingLogits(box.state), box.state);
    expect(Number(metric(root, 'kept'))).toBe(want.kept);
    const bars = fig(root).querySelectorAll('[data-chart="decode"] rect[data-series="final"]');
    expect(bars.length).toBe(16);
    [...bars].forEach((b, i) => expect(Number(b.getAttribute('data-value'))).toBe(want.final[i]));
    expect(root.querySelector('[data-editor="logits"]')).toBeTruthy();
    const seen = new Set([metric(root, 'draws')]);
    await vi.waitFor(() => {
      seen.add(metric(root, 'draws'));
      expect(metric(root, 'draws')).toBe('2000');
    }, { timeout: 10000, interval: 5 });
    expect(seen.size).toBeGreaterThan(2); // 0, some batches, N
    const tv = Number(metric(root, 'tv'));
    if (want.kept === 1) expect(tv).toBe(0);
    else { expect(tv).toBeGreaterThan(0); expect(tv).toBeLessThan(0.1); }
    const p = Number(metric(root, 'chi2'));
    expect(p).toBeGreaterThanOrEqual(0);
    expect(p).toBeLessThanOrEqual(1);
    expect(fig(root).querySelectorAll('[data-series="empirical"]').length).toBe(16);
    expect(fig(root).querySelectorAll('[data-chart="simplex"] circle[data-dot]').length).toBe(120);
  });

  it('a large vocabulary: moving a stage slider or toggling a stage changes what is kept, as the API computes', async () => {
    const { root, box } = mount('#vocab=8192&draws=1000');
    expect(root.querySelector('[data-editor="logits"]')).toBe(null);
    const kept = () => Number(metric(root, 'kept'));
    const apiKept = () => runPipeline(ss, samplingLogits(box.state), box.state).kept;
    const k0 = kept();
    expect(k0).toBe(apiKept());
    expect(Number(fig(root).querySelector('[data-stage="top_p"]').getAttribute('data-stage-kept'))).toBe(k0);
    slide(root.querySelector('#sampling-top_p'), 300); // p well below 0.9
    await vi.waitFor(() => expect(box.state.stages.top_p).toBeLessThan(0.5));
    const k1 = kept();
    expect(k1).toBeLessThan(k0);
    expect(k1).toBe(apiKept());
    slide(root.querySelector('#sampling-temperature'), 200); // a colder softmax concentrates the nucleus
    await vi.waitFor(() => expect(box.state.stages.temperature).toBeLessThan(0.5));
    expect(kept()).toBeLessThan(k1);
    expect(kept()).toBe(apiKept());
    await vi.waitFor(() => expect(metric(root, 'draws')).toBe('1000'), { timeout: 10000 });
    check(root.querySelector('#sampling-on-top_p'), false);
    await vi.waitFor(() => expect(kept()).toBe(8192));
    expect(box.state.on).toEqual(['temperature']);
    expect(fig(root).querySelector('[data-stage="top_p"]').getAttribute('data-stage-on')).toBe('0');
  });

  it('the hard toggle puts every sample on a vertex, counted per class', async () => {
    const { root, box } = mount('#preset=two_modes&n=8&m=60&tau=0.7&tri=1,0,-0.5');
    check(root.querySelector('#sampling-hard'), true);
    await vi.waitFor(() => expect(box.state.hard).toBe(true));
    const counts = [...fig(root).querySelectorAll('[data-count]')].map((e) => Number(e.getAttribute('data-count')));
    expect(counts.length).toBe(3);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(60);
    for (const c of fig(root).querySelectorAll('[data-chart="simplex"] circle[data-dot]'))
      expect(c.getAttribute('data-value').split(',').map(Number).sort()).toEqual([0, 0, 1]);
  });

  it('a build with only the sampler core: one stage, notes for the missing kernels, the draws still run', async () => {
    const api = coreOnly(ss);
    const { root } = mount('#vocab=1024&on=temperature,top_p&draws=500', api);
    expect([...root.querySelectorAll('.side [data-stage]')].map((e) => e.getAttribute('data-stage'))).toEqual(['temperature']);
    expect([...fig(root).querySelectorAll('[data-stage]')].map((e) => e.getAttribute('data-stage'))).toEqual(['temperature']);
    expect(Number(metric(root, 'kept'))).toBe(1024);
    expect(fig(root).querySelector('[data-gumbel]').getAttribute('data-gumbel')).toBe('missing');
    expect(fig(root).querySelector('[data-error="estimators"]').textContent).toContain('not in this build');
    await vi.waitFor(() => expect(metric(root, 'draws')).toBe('500'), { timeout: 10000 });
  });
});
