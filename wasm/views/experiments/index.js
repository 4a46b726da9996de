// The Experiments view: schema (state), model (numbers; the training run as
// a stepper, analysis/experiments.js), figure (marks). Its compute trains a
// model per normalizer (createModel: a function of its own module, so only
// this view's bundle carries it).
import { schema } from './schema.js';
import { compute, start, table, describe } from './model.js';
import { ExperimentsFigure, experimentsHeight } from '../../figures/experiments.js';
import { kernelColors } from '../../figures/palette.js';

const ID = 'experiments';
const LABEL = 'Experiments';
const SUMMARY = 'a tiny attention model trained live per normalizer: curves, length generalisation, attention, quantisation';
const WIDTH = 960;
const colors = (ss) => kernelColors(ss, 'normalizer');
// The data's shape (data-shape.js), loaded when a results file is read: a page that only draws does without it.
const dataShape = () => import('./data-shape.js').then((m) => m.dataShape);

export const experiments = {
  id: ID, label: LABEL, summary: SUMMARY, schema, dataShape, compute, start, table, describe,
  Figure: ExperimentsFigure, height: experimentsHeight, width: WIDTH, colors,
};

// The view without its training (compute, start, and with them the model
// API): what a page that only draws needs. The widget's main thread draws
// from it (web/src/views/experiments/View.jsx: its Web Worker trains with
// the whole view), so the widget's bundle carries no training code. (Both
// objects are literals: { ...experimentsDisplay, compute, start } would keep
// `experiments`, and the training code, in every bundle that imports this
// module, since a spread may run getters.)
export const experimentsDisplay = {
  id: ID, label: LABEL, summary: SUMMARY, schema, dataShape, table, describe,
  Figure: ExperimentsFigure, height: experimentsHeight, width: WIDTH, colors,
};
export default experiments;

// What the playground's View builds its controls from.
export { experimentOptions } from './model.js';
export { trainable, panelQuantizers, TRAIN_DEFAULTS, MAX_NORMALIZERS } from './schema.js';
export { testLengths, REACHED } from '../../analysis/experiments.js';
