// The Dispersion view: schema (state), model (the sweep, as a stepper),
// figure (three charts against n).
import { schema } from './schema.js';
import { compute, start, table } from './model.js';
import { DispersionFigure, dispersionHeight } from '../../figures/dispersion.js';
import { kernelColors } from '../../figures/palette.js';
import { fmt, count } from '../../figures/format.js';
import { list } from '../describe.js';

export const dispersion = {
  id: 'dispersion',
  label: 'Dispersion',
  summary: 'a planted key among n − 1 distractors, n up to 2²⁰: who disperses',
  schema,
  // its data's shape (data-shape.js: the types; its nested parts by their type only, so no results file)
  dataShape: () => import('./data-shape.js').then((m) => m.dataShape),
  compute,
  start,
  table,
  // one sentence of what the figure shows (screen readers, once the numbers settle)
  describe: (d) => {
    if (!d.n.length) return 'no normalizer to sweep';
    const j = d.n.length - 1;
    return `at n = ${count(d.n[j])}: ${list(d.series.map((s) => `${s.name} key ${fmt(s.keyProb[j], 3)}, entropy ${fmt(s.entropy[j], 3)}, support ${count(s.support[j])}`))}`;
  },
  Figure: DispersionFigure,
  height: dispersionHeight,
  width: 960,
  colors: (ss) => kernelColors(ss, 'normalizer'),
};
export default dispersion;
