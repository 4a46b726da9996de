// The Sampling view: schema (state), model (numbers; the draws as a
// stepper), figure (marks).
import { schema } from './schema.js';
import { compute, start, table } from './model.js';
import { SamplingFigure, samplingHeight } from '../../figures/sampling.js';
import { kernelColors } from '../../figures/palette.js';
import { fmt, pct, count } from '../../figures/format.js';

export const sampling = {
  id: 'sampling',
  label: 'Sampling',
  summary: 'decoding stages, live categorical draws, Gumbel-Softmax and its gradient estimators',
  schema,
  // its data's shape (data-shape.js: the types; its nested parts by their type only, so no results file)
  dataShape: () => import('./data-shape.js').then((m) => m.dataShape),
  compute,
  start,
  table,
  // one sentence of what the figure shows (screen readers, once the numbers settle)
  describe: (d) => (d.error ? d.error
    : `${count(d.kept)} of ${count(d.n)} tokens kept, ${pct(d.keptMass)} of the mass; ${count(d.draws.done)} draws, TV distance ${fmt(d.draws.tv, 3)}`),
  Figure: SamplingFigure,
  height: samplingHeight,
  width: 720,
  colors: (ss) => kernelColors(ss, 'sampler'),
};
export default sampling;

// What the playground's View builds its controls from.
export { cachedLogits } from './model.js';
export { nBound } from './decode.js';
export { relaxedKernel } from './gumbel.js';
export { decodeStages, stageParam, TRI_LIMIT, TARGET_LIMIT } from './schema.js';
export { LM, LM_SIZES, SAMPLING_PRESETS } from './logits.js';
