// The Sampling view: schema (state), model (numbers), figure (marks).
import { schema } from './schema.js';
import { compute, table } from './model.js';
import { SamplingFigure, samplingHeight } from '../../figures/sampling.js';
import { kernelColors } from '../../figures/palette.js';

export const sampling = {
  id: 'sampling',
  label: 'Sampling',
  summary: 'decoding stages, live categorical draws, Gumbel-Softmax and its gradient estimators',
  schema,
  compute,
  table,
  Figure: SamplingFigure,
  height: samplingHeight,
  width: 720,
  colors: (ss) => kernelColors(ss, 'sampler'),
};
export default sampling;
