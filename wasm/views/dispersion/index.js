// The Dispersion view: schema (state), model (the sweep), figure (three charts against n).
import { schema } from './schema.js';
import { compute, table } from './model.js';
import { DispersionFigure, dispersionHeight } from '../../figures/dispersion.js';
import { kernelColors } from '../../figures/palette.js';

export const dispersion = {
  id: 'dispersion',
  label: 'Dispersion',
  summary: 'a planted key among n − 1 distractors, n up to 2^20: who disperses',
  schema,
  compute,
  table,
  Figure: DispersionFigure,
  height: dispersionHeight,
  width: 960,
  colors: (ss) => kernelColors(ss, 'normalizer'),
};
export default dispersion;
