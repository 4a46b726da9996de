// The views a widget can show, loaded on demand: a page with one widget
// downloads the shared code and that one view's code, not all seven. The list
// is the views' folders (wasm/views/<id>/index.js with its
// web/src/views/<id>/View.jsx), so a new view is embeddable without a line here.
const MODULES = import.meta.glob('../../../wasm/views/*/index.js');
const COMPONENTS = import.meta.glob('../views/*/View.jsx');

const idOf = (path) => path.split('/').at(-2);
const modules = Object.fromEntries(Object.entries(MODULES).map(([p, load]) => [idOf(p), load]));
const components = Object.fromEntries(Object.entries(COMPONENTS).map(([p, load]) => [idOf(p), load]));

/** The ids of the embeddable views. */
export const VIEW_IDS = Object.keys(modules).filter((id) => components[id]).sort();

const cache = new Map();

/** The view module with its View component, or null for an unknown id. */
export function loadView(id) {
  if (!VIEW_IDS.includes(id)) return Promise.resolve(null);
  if (!cache.has(id)) cache.set(id, Promise.all([modules[id](), components[id]()]).then(([m, c]) => ({ ...m.default, View: c.default })));
  return cache.get(id);
}
