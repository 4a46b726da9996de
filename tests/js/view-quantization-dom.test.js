// @vitest-environment happy-dom
// The Quantization view in a DOM, as the playground mounts it: its controls
// re-quantize (fewer bits, fewer levels and a larger error, the levels drawn
// being the kernel's), a parameter C rejects for this input is shown where
// it happens while the rest stays drawn, and probability values read on a
// log axis; AdaRound as the scheme brings its layer rows control and the
// layer grid, which follows it.
import { describe, it, expect, vi, beforeAll, afterEach } from 'vitest';
import { createSoftscope } from 'softscope';
import { quantization } from '../../wasm/views/quantization/index.js';
import { sourceValues, schemeParams, levels } from '../../wasm/views/quantization/model.js';
import { QuantizationView } from '../../web/src/views/quantization/View.jsx';
import { mountView, unmountAll, figureOf as fig, metric, change, slide } from './support/view-dom.js';
import { WASM } from './support/wasm-paths.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ wasm: WASM, impl: 'scalar' }); });
afterEach(unmountAll);
const mount = (hash) => mountView(quantization, QuantizationView, hash, ss);

describe('the Quantization view', () => {
  it('fewer bits from the stepper: fewer levels and a larger error, as the kernel computes', async () => {
    const { root, box } = mount('#n=512&bits=4');
    const shown = () => [...fig(root).querySelectorAll('[data-level]')].map((e) => Number(e.getAttribute('data-level')));
    const node = () => {
      const s = box.state;
      const x = sourceValues(ss, s), k = ss.kernel(s.scheme, 'quantizer');
      return levels(ss.quantize(k.name, x, schemeParams(k, s.params, s.seed)).output).map((l) => l.value);
    };
    expect(shown()).toEqual(node());
    const mse0 = Number(metric(root, 'mse'));
    change(root.querySelector('#quant-bits-step'), 2);
    await vi.waitFor(() => expect(box.state.params.bits).toBe(2));
    expect(shown()).toEqual(node());
    expect(shown().length).toBeLessThanOrEqual(3);
    expect(Number(metric(root, 'mse'))).toBeGreaterThan(mse0);
  });

  it('a group C rejects for n shows its message at the histogram and the effect; the view stays drawn', async () => {
    const { root, box } = mount('#n=512');
    change(root.querySelector('#quant-group-step'), 100);
    await vi.waitFor(() => expect(box.state.params.group).toBe(100));
    expect(fig(root).querySelector('[data-error="uniform"]').textContent).toContain('params.group = 100 must divide n = 512');
    expect(fig(root).querySelectorAll('[data-chart="quant-histogram"] rect[data-count]').length).toBeGreaterThan(10);
    // the source select: attention values are probabilities, drawn on a log axis
    change(root.querySelector('#quant-source'), 'attention');
    await vi.waitFor(() => expect(box.state.source).toBe('attention'));
    expect(root.querySelector('#quant-log').checked).toBe(true);
  });

  it('AdaRound: the layer rows control appears and the grid follows it', async () => {
    const { root, box } = mount('#n=256&iters=100');
    expect(root.querySelector('#quant-rows')).toBe(null);
    change(root.querySelector('#quant-scheme'), 'adaround');
    await vi.waitFor(() => expect(box.state.scheme).toBe('adaround'));
    const cells = () => fig(root).querySelectorAll('[data-layer-grid] rect').length;
    expect(cells()).toBe(8 * 16);
    slide(root.querySelector('#quant-rows'), 0);
    await vi.waitFor(() => expect(box.state.rows).toBe(1));
    expect(cells()).toBe(16);
    expect(Number(metric(root, 'error'))).toBeLessThanOrEqual(Number(metric(root, 'error_nearest')));
  });
});
