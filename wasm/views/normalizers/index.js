// The Normalizers view: schema (state), model (numbers), figure (marks).
import { schema } from './schema.js';
import { compute, table } from './model.js';
import { NormalizersFigure, normalizersHeight } from '../../figures/normalizers.js';
import { kernelColors } from '../../figures/palette.js';

export const normalizers = {
  id: 'normalizers',
  label: 'Normalizers',
  summary: 'softmax and its relatives on one logit vector, side by side',
  schema,
  compute,
  table,
  Figure: NormalizersFigure,
  height: normalizersHeight,
  width: 720,
  colors: (ss) => kernelColors(ss, 'normalizer'),
};
export default normalizers;
