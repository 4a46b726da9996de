// Mounting a view as the playground does, for DOM tests (happy-dom): the
// state read by the view's schema, updates through settle (numbers as links
// write them, then schema.finish), and a Layout that puts the view's figure
// inside [data-view-figure]; plus the DOM events a slider, a checkbox and a
// select send.
import { h, render } from 'preact';
import { useState } from 'preact/hooks';
import { parse, hashEntries, settle } from '../../../wasm/state/schema.js';

const mounted = [];

/** Unmounts every view mountView mounted (call it in afterEach). */
export function unmountAll() {
  for (const u of mounted.splice(0)) u();
}

/** Mounts view module v with its View component at a link's hash: { root, box: { state } (the current state) }. */
export function mountView(v, View, hash, api) {
  const root = document.createElement('div');
  document.body.appendChild(root);
  const box = { state: null };
  const colors = v.colors(api);
  function Layout({ data, caption, input, editor, side, below }) {
    return h('div', null, caption, input, h('div', { class: 'side' }, side),
      h('div', { 'data-view-figure': v.id }, data && h(v.Figure, { data, colors, theme: 'light', width: 720 })), below, editor);
  }
  function Harness() {
    const [state, setState] = useState(() => parse(v.schema, hashEntries(hash), api).state);
    box.state = state;
    const set = (patch) => setState((cur) => {
      const next = { ...cur, ...(typeof patch === 'function' ? patch(cur) : patch) };
      return settle(v.schema, next, api);
    });
    return h(View, { ss: api, v, state, set, colors, controls: 'all', Layout });
  }
  render(h(Harness), root);
  mounted.push(() => { render(null, root); root.remove(); });
  return { root, box };
}

/** The figure's element and the data-value of one of its readouts (data-metric). */
export const figureOf = (root) => root.querySelector('[data-view-figure]');
export const metric = (root, name) => figureOf(root).querySelector(`[data-metric="${name}"]`)?.getAttribute('data-value');

/** A range input moved to a position (the Slider's 0..1000 steps). */
export function slide(input, pos) {
  input.value = String(pos);
  input.dispatchEvent(new Event('input', { bubbles: true }));
}

/** A checkbox set, a select or number input changed. */
export function check(input, on) {
  input.checked = on;
  input.dispatchEvent(new Event('change', { bubbles: true }));
}
export function change(input, value) {
  input.value = String(value);
  input.dispatchEvent(new Event('change', { bubbles: true }));
}
