// The six views. Each is one module in three places: a playground tab, an
// embedded widget, and a headless figure (softscope figure). A view is
//   schema   its state: keys, types, ranges, defaults (state/schema.js reads
//            and writes it as links, widget attributes and --state)
//   compute  state -> the numbers it shows (the model; calls the kernels)
//   table    those numbers as rows (CSV)
//   Figure   numbers -> marks (a Preact component drawing one SVG)
import { normalizers } from './normalizers/index.js';
import { sampling } from './sampling/index.js';
import { quantization } from './quantization/index.js';
import { parse, defaults, toHash, stateEntries } from '../state/schema.js';
import { figureFiles } from './files.js';

export const VIEWS = [
  normalizers,
  sampling,
  quantization,
];
export const VIEW_IDS = VIEWS.map((v) => v.id);

/** The view with this id (an Error naming the known ones otherwise). */
export function view(id) {
  const v = VIEWS.find((x) => x.id === id);
  if (!v) throw new Error(`unknown view "${id}"; views: ${VIEW_IDS.join(', ')}`);
  return v;
}

export { parse, defaults, toHash, stateEntries, figureFiles };
export { plain, csv } from './data.js';

/**
 * A view's figure for a state, headless: { svg, data, state, notices }.
 * stateText: a playground link's hash or key=value pairs (invalid keys fall
 * back to defaults, listed in notices).
 */
export function renderFigure(ss, id, stateText = '', { width, height, theme = 'light' } = {}) {
  const v = view(id);
  const { state, notices } = parse(v.schema, stateEntries(stateText), ss, { ignore: ['view'] });
  const data = v.compute(ss, state);
  return { ...figureFiles(ss, v, state, data, { width, height, theme }), data, state, notices };
}
