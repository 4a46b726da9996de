// The views: the one list (tab order). Each is one module in three places:
// a playground tab, an embedded widget, and a headless figure (softscope
// figure). A view is (README.md, "adding a view"; types: index.d.ts)
//   schema   its state: keys, types, ranges, defaults (state/schema.js reads
//            and writes it as links, widget attributes and --state)
//   dataShape () -> the shape of those numbers, declared once (shape.js: the
//            types; a results file's check, for a view whose shape is bounded)
//   compute  state -> the numbers it shows (the model; calls the kernels)
//   start    (a progressive view) the same numbers in slices: a stepper
//            (stepper.js); compute runs it to the end
//   measure  (only a view that times: Performance) state -> timings, async;
//            its compute(ss, state, timings) is then a function of those
//   table    those numbers as rows (CSV)
//   describe those numbers in one sentence
//   Figure   numbers -> marks (a Preact component drawing one SVG)
import { normalizers } from './normalizers/index.js';
import { dispersion } from './dispersion/index.js';
import { sampling } from './sampling/index.js';
import { quantization } from './quantization/index.js';
import { optimizers } from './optimizers/index.js';
import { attention } from './attention/index.js';
import { experiments } from './experiments/index.js';
import { language } from './language/index.js';
import { performanceView } from './performance/index.js';
import { parse, defaults, toHash, stateEntries } from '../state/schema.js';

export const VIEWS = [
  normalizers,
  dispersion,
  sampling,
  quantization,
  optimizers,
  attention,
  experiments,
  language,
  performanceView,
];
export const VIEW_IDS = VIEWS.map((v) => v.id);

/** The view with this id (an Error naming the known ones otherwise). */
export function view(id) {
  const v = VIEWS.find((x) => x.id === id);
  if (!v) throw new Error(`unknown view "${id}"; views: ${VIEW_IDS.join(', ')}`);
  return v;
}

export { parse, defaults, toHash, stateEntries };
export { plain, csv } from './data.js';
