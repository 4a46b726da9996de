// @vitest-environment happy-dom
// The playground's Embed snippet (web/src/lib/embedSnippet.js): the keys a
// change moves, the widget's `controls` written out for them (a kernel
// parameter by its control's name, a key shown inside another key's block
// with that block), and a view mounted with those controls shows the moved
// keys' controls and not the rest (not the 22 normalizer checkboxes).
import { describe, it, expect, beforeAll, afterEach } from 'vitest';
import { createSoftscope } from 'softscope';
import { movedKeys, embedControls, embedSnippet } from '../../web/src/lib/embedSnippet.js';
import { WEB_VIEWS } from '../../web/src/views/index.js';
import { mountView } from './support/mount-view.js';
import { WASM } from './support/wasm-paths.js';

let ss;
const mounted = [];
beforeAll(async () => { ss = await createSoftscope({ wasm: WASM, impl: 'scalar' }); });
afterEach(() => { while (mounted.length) mounted.pop().unmount(); });
const view = (id) => WEB_VIEWS.find((v) => v.id === id);
const mount = (id, link, controls) => {
  const m = mountView(ss, id, link, { controls: new Set(controls) });
  mounted.push(m);
  return m;
};
const inputs = (root) => root.querySelectorAll('input, select, textarea').length;

describe('the Embed snippet', () => {
  it('movedKeys: the keys a patch changes, a params field by its parameter keys', () => {
    const cur = { temperature: 1, kernels: ['softmax'], params: { alpha: 1.5 } };
    expect(movedKeys(cur, { temperature: 1, kernels: ['softmax', 'sparsemax'] })).toEqual(['kernels']);
    expect(movedKeys(cur, { params: { alpha: 1.5, beta: 2 } })).toEqual(['beta']);
    expect(movedKeys(cur, { params: {} })).toEqual(['alpha']);
  });

  it('controls= is written out: the moved keys in schema order, none for a still figure', () => {
    const v = view('normalizers');
    const state = mount('normalizers', 'temperature=0.5').box.state;
    const base = 'https://example.org/play/';
    expect(embedSnippet(v, state, ss, base, [])).toBe('<script type="module" src="https://example.org/play/embed/embed.js"></script>\n'
      + '<softscope-widget view="normalizers" temperature="0.5" controls="none"></softscope-widget>');
    expect(embedControls(v, ['alpha', 'temperature'])).toEqual(['temperature', 'alpha']);
    expect(embedSnippet(v, state, ss, base, embedControls(v, ['temperature']))).toContain(' controls="temperature">');
    // a kernel's own parameter is its control's name; the shown optimizer stays the state's
    expect(embedControls(view('optimizers'), ['sgd.lr', 'sel'])).toEqual(['sel', 'lr']);
  });

  it('a view mounted with the controls of the moved keys shows those controls, not all of them', () => {
    const all = mountView(ss, 'normalizers', 'temperature=0.5');
    mounted.push(all);
    const v = view('normalizers');
    // n and the preset live in the logits editor: it comes with them
    const { root } = mount('normalizers', 'temperature=0.5', embedControls(v, ['temperature', 'n', 'preset']));
    for (const id of ['norm-temperature', 'norm-n', 'norm-preset']) expect(root.querySelector(`#${id}`), id).not.toBe(null);
    expect(root.querySelectorAll('input[type="checkbox"]').length).toBe(0);
    expect(all.root.querySelectorAll('input[type="checkbox"]').length).toBeGreaterThanOrEqual(20);
    expect(inputs(root)).toBeLessThan(inputs(all.root) / 4);
    // the sampling view's n, vocabulary and seed sit in the logits block, which the preset opens
    const s = mount('sampling', 'preset=two_modes&n=12', embedControls(view('sampling'), ['n'])).root;
    expect(s.querySelector('#sampling-n')).not.toBe(null);
    const lm = mount('sampling', 'vocab=4096', embedControls(view('sampling'), ['vocab'])).root;
    expect(lm.querySelector('#sampling-vocab')).not.toBe(null);
    // an optimizer's lr: the lr of the optimizer shown, and nothing else of it
    const link = 'kernels=sgd,adam&sel=sgd&sgd.lr=0.002&steps=20';
    const o = mount('optimizers', link, embedControls(view('optimizers'), ['sgd.lr'])).root;
    const allO = mountView(ss, 'optimizers', link);
    mounted.push(allO);
    expect(allO.root.querySelector('#optim-sgd-weight_decay')).not.toBe(null);
    expect(o.querySelector('#optim-sgd-lr')).not.toBe(null);
    expect(o.querySelector('#optim-sgd-weight_decay')).toBe(null);
  });
});
