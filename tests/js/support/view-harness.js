// Helpers for tests of a view module (schema, model, figure) under
// happy-dom: the view's state from link text, and its figure mounted in the
// document.
import { render } from 'preact';
import { html } from '../../../wasm/figures/h.js';
import { parse, stateEntries } from '../../../wasm/state/schema.js';

/** { read(text) -> { state, notices }, state(text) -> state } for a view (ss: a function, as it loads in beforeAll). */
export function viewState(view, getSs) {
  const read = (text) => parse(view.schema, stateEntries(text), getSs(), { ignore: ['view'] });
  return { read, state: (text) => read(text).state };
}

/** The view's figure for data, mounted: { root, q (querySelector), qa (all, an array), unmount }. */
export function mountFigure(view, ss, data, props = {}) {
  const root = document.createElement('div');
  document.body.appendChild(root);
  render(html`<${view.Figure} data=${data} colors=${view.colors(ss)} theme="light" width=${view.width} ...${props} />`, root);
  return { root, q: (s) => root.querySelector(s), qa: (s) => [...root.querySelectorAll(s)], unmount: () => { render(null, root); root.remove(); } };
}
