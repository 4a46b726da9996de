// The Attention view: schema (state), model (numbers), figure (marks).
import { schema } from './schema.js';
import { compute, table } from './model.js';
import { AttentionFigure, attentionHeight } from '../../figures/attention.js';
import { kernelColors } from '../../figures/palette.js';

export const attention = {
  id: 'attention',
  label: 'Attention',
  summary: 'attention matrices with each normalizer in softmax\'s place, and linear forms, as heat maps',
  schema,
  compute,
  table,
  Figure: AttentionFigure,
  height: attentionHeight,
  width: 940,
  // normalizers and linear forms keep their colours of their families
  colors: (ss) => new Map([...kernelColors(ss, 'normalizer'), ...kernelColors(ss, 'attention')]),
};
export default attention;
