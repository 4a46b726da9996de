// The Optimizers view: schema (state), model (numbers; the race as a
// stepper), figure (marks).
import { schema } from './schema.js';
import { compute, start, table } from './model.js';
import { OptimizersFigure, optimizersHeight } from '../../figures/optimizers.js';
import { kernelColors } from '../../figures/palette.js';
import { fmt } from '../../figures/format.js';
import { list } from '../describe.js';

export const optimizers = {
  id: 'optimizers',
  label: 'Optimizers',
  summary: 'optimizers racing over a 2-D test function, and f − f* against the step',
  schema,
  // its data's shape (data-shape.js: the types; its nested parts by their type only, so no results file)
  dataShape: () => import('./data-shape.js').then((m) => m.dataShape),
  compute,
  start,
  table,
  // one sentence of what the figure shows (screen readers, once the numbers settle)
  describe: (d) => `step ${d.step} of ${d.steps} on ${d.fn.name}: ${list(d.runs.map((r) => (r.error ? `${r.name} stopped: ${r.error}`
    : `${r.name} f ${fmt(r.f, 3)}${r.diverged ? ' (diverged)' : `, ${fmt(r.distance, 3)} from the nearest minimum`}`)))}`,
  Figure: OptimizersFigure,
  height: optimizersHeight,
  width: 760,
  colors: (ss) => kernelColors(ss, 'optimizer'),
};
export default optimizers;

// What the playground's View builds its controls from.
export { functionOf } from './model.js';
