// @vitest-environment happy-dom
// The Attention view's controls for its two sections, in a DOM as the
// playground and a widget mount them: the shared features control starts at
// the view's default (not performer's registry default), its stepper
// recomputes every error map with the new count (the error falls), the
// sink threshold flips the flags the figure draws, and a widget showing only
// `features` gets that control and no other.
import { describe, it, expect, vi, beforeAll, afterEach } from 'vitest';
import { h, render } from 'preact';
import { createSoftscope } from 'softscope';
import { attention } from '../../wasm/views/attention/index.js';
import { RF_DEFAULTS } from '../../wasm/views/attention/schema.js';
import { AttentionView } from '../../web/src/views/attention/View.jsx';
import { mountView, unmountAll, figureOf as fig, change, slide } from './support/view-dom.js';
import { WASM } from './support/wasm-paths.js';

let ss;
beforeAll(async () => { ss = await createSoftscope({ wasm: WASM }); });
afterEach(unmountAll);
const mount = (hash) => mountView(attention, AttentionView, hash, ss);
const values = (root, sel) => [...fig(root).querySelectorAll(sel)].map((e) => Number(e.getAttribute('data-value')));

describe('the Attention view\'s sections', () => {
  it('features starts at the view\'s default; more features lower every error map\'s error', async () => {
    const { root, box } = mount('#example=copy&scale=0.5&normalizers=softmax');
    const step = root.querySelector('#attn-features-step');
    expect(Number(step.value)).toBe(RF_DEFAULTS.features);
    const before = values(root, '[data-metric="rf-error"]');
    expect(before.length).toBe(box.state.rf.length);
    change(step, 512);
    await vi.waitFor(() => expect(box.state.rf_params.features).toBe(512));
    const after = values(root, '[data-metric="rf-error"]');
    after.forEach((e, i) => expect(e).toBeLessThan(before[i]));
  });

  it('the sink threshold decides which heads the figure marks as sinks', async () => {
    const { root, box } = mount('#normalizers=softmax');
    const sinks = () => [...fig(root).querySelectorAll('[data-heads-of="softmax"] [data-sink="1"]')].length;
    expect(sinks()).toBe(1); // the dormant head
    slide(root.querySelector('#attn-sink_eps'), 0);
    await vi.waitFor(() => expect(box.state.sink_eps).toBe(0));
    expect(sinks()).toBe(2);
  });

  it('a widget showing only features: that control, and no other', async () => {
    const root = document.createElement('div');
    document.body.appendChild(root);
    const s = attention.schema;
    const { parse, hashEntries } = await import('../../wasm/state/schema.js');
    const state = parse(s, hashEntries('normalizers=softmax'), ss).state;
    const Layout = ({ input, side }) => h('div', null, input, side);
    render(h(AttentionView, { ss, v: attention, state, set: () => {}, colors: attention.colors(ss), controls: new Set(['features']), Layout }), root);
    try {
      expect(root.querySelector('#attn-features-step')).not.toBe(null);
      expect(root.querySelectorAll('input').length).toBe(2); // its slider and its stepper
    } finally {
      render(null, root);
      root.remove();
    }
  });
});
