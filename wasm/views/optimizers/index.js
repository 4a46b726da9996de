// The Optimizers view: schema (state), model (numbers), figure (marks).
import { schema } from './schema.js';
import { compute, table } from './model.js';
import { OptimizersFigure, optimizersHeight } from '../../figures/optimizers.js';
import { kernelColors } from '../../figures/palette.js';

export const optimizers = {
  id: 'optimizers',
  label: 'Optimizers',
  summary: 'optimizers racing over a 2-D test function, and f − f* against the step',
  schema,
  compute,
  table,
  Figure: OptimizersFigure,
  height: optimizersHeight,
  width: 760,
  colors: (ss) => kernelColors(ss, 'optimizer'),
};
export default optimizers;
