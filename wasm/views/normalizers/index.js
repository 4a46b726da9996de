// The Normalizers view: schema (state), model (numbers), figure (marks).
import { schema } from './schema.js';
import { compute, table } from './model.js';
import { NormalizersFigure, normalizersHeight } from '../../figures/normalizers.js';
import { kernelColors } from '../../figures/palette.js';
import { fmt } from '../../figures/format.js';
import { list } from '../describe.js';

export const normalizers = {
  id: 'normalizers',
  label: 'Normalizers',
  summary: 'softmax and its relatives on one logit vector, side by side',
  schema,
  // its data's shape (data-shape.js: the types; its nested parts by their type only, so no results file)
  dataShape: () => import('./data-shape.js').then((m) => m.dataShape),
  compute,
  table,
  // one sentence of what the figure shows (screen readers, once the numbers settle)
  describe: (d) => list(d.series.map((s) => (s.error ? `${s.name}: ${s.error}`
    : `${s.name}: entropy ${fmt(s.metrics.entropy, 3)} nats, max ${fmt(s.metrics.max, 3)}, support ${s.metrics.support} of ${s.y.length}`))),
  Figure: NormalizersFigure,
  height: normalizersHeight,
  width: 720,
  colors: (ss) => kernelColors(ss, 'normalizer'),
};
export default normalizers;
