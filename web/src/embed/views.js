// The views a widget can show, loaded on demand: a page with one widget
// downloads the shared code and that one view's code, not all seven. The
// views are found by folder (web/src/views/<id>/View.jsx, whose module also
// names its package view module, softscope/views/<id>), so a new view is
// embeddable without a line here.
const COMPONENTS = import.meta.glob('../views/*/View.jsx');

const idOf = (path) => path.split('/').at(-2);
const components = Object.fromEntries(Object.entries(COMPONENTS).map(([p, load]) => [idOf(p), load]));

/** The ids of the embeddable views. */
export const VIEW_IDS = Object.keys(components).sort();

const cache = new Map();

/** The view module with its View component (and opensModel where the View exports it), or null for an unknown id. */
export function loadView(id) {
  if (!VIEW_IDS.includes(id)) return Promise.resolve(null);
  // (opensModel: a view that opens a model file, model="…"; a view that draws from a results file declares its
  // data's shape, dataShape, which results.js checks a file against)
  if (!cache.has(id)) cache.set(id, components[id]().then((m) => ({ ...m.view, View: m.default, opensModel: !!m.opensModel })));
  return cache.get(id);
}
