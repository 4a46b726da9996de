// Mounts a playground view in happy-dom the way the App does (state from a
// link through the view's schema, set() patches and settles the state), with
// a plain layout that renders every part and the figure.
import { h, render } from 'preact';
import { useState } from 'preact/hooks';
import { parse, stateEntries, toHash, settle } from '../../../wasm/state/schema.js';
import { WEB_VIEWS } from '../../../web/src/views/index.js';

export function mountView(ss, id, link = '', { controls = 'all', colors } = {}) {
  const v = WEB_VIEWS.find((x) => x.id === id);
  const root = document.createElement('div');
  document.body.appendChild(root);
  const box = { state: null, data: null, notices: null };
  const cols = colors ?? v.colors(ss);
  function Layout({ data, caption, input, editor, side, below, figure = {} }) {
    box.data = data;
    return h('div', null, caption, input, side, data ? h(v.Figure, { data, colors: cols, width: 900, ...figure }) : null, below, editor);
  }
  function Harness() {
    const [state, setState] = useState(() => {
      const r = parse(v.schema, stateEntries(link), ss, { ignore: ['view'] });
      box.notices = r.notices;
      return r.state;
    });
    box.state = state;
    const set = (patch) => setState((s) => {
      const next = { ...s, ...(typeof patch === 'function' ? patch(s) : patch) };
      return settle(v.schema, next, ss);
    });
    return h(v.View, { ss, v, state, set, colors: cols, controls, Layout });
  }
  render(h(Harness), root);
  return { root, box, v, link: () => toHash(v.schema, box.state, ss), unmount: () => { render(null, root); root.remove(); } };
}

export const flush = () => new Promise((r) => setTimeout(r, 0));
