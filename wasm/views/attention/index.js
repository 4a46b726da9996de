// The Attention view: schema (state), model (numbers), figure (marks).
import { schema } from './schema.js';
import { compute, table } from './model.js';
import { AttentionFigure, attentionHeight } from '../../figures/attention.js';
import { kernelColors } from '../../figures/palette.js';
import { fmt, pct } from '../../figures/format.js';
import { list } from '../describe.js';

export const attention = {
  id: 'attention',
  label: 'Attention',
  summary: 'attention matrices with each normalizer in softmax\'s place, and linear forms, as heat maps',
  schema,
  // its data's shape (data-shape.js: the types; its nested parts by their type only, so no results file)
  dataShape: () => import('./data-shape.js').then((m) => m.dataShape),
  compute,
  table,
  // one sentence of what the figure shows (screen readers, once the numbers settle)
  describe: (d) => list(d.panels.map((p) => (p.error ? `${p.label}: ${p.error}`
    : `${p.label}: entropy ${fmt(p.mean.entropy, 3)}, ${pct(p.mean.zeros)} exact zeros, TV to softmax ${fmt(p.tv, 3)}`))),
  Figure: AttentionFigure,
  height: attentionHeight,
  width: 940,
  // normalizers and linear forms keep their colours of their families
  colors: (ss) => new Map([...kernelColors(ss, 'normalizer'), ...kernelColors(ss, 'attention')]),
};
export default attention;
