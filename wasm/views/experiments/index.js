// The Experiments view: schema (state), model (numbers; the training run as
// a stepper, analysis/experiments.js), figure (marks). Its compute trains a
// model per normalizer (createModel: a function of its own module, so only
// this view's bundle carries it).
import { schema } from './schema.js';
import { compute, start, table, describe } from './model.js';
import { ExperimentsFigure, experimentsHeight } from '../../figures/experiments.js';
import { kernelColors } from '../../figures/palette.js';

export const experiments = {
  id: 'experiments',
  label: 'Experiments',
  summary: 'a tiny attention model trained live per normalizer: curves, length generalisation, attention, quantisation',
  schema,
  compute,
  start,
  table,
  describe,
  Figure: ExperimentsFigure,
  height: experimentsHeight,
  width: 960,
  colors: (ss) => kernelColors(ss, 'normalizer'),
};
export default experiments;

// What the playground's View builds its controls from.
export { experimentOptions } from './model.js';
export { trainable, panelQuantizers, TRAIN_DEFAULTS, MAX_NORMALIZERS } from './schema.js';
export { testLengths, REACHED } from '../../analysis/experiments.js';
