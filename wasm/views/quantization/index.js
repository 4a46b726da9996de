// The Quantization view: schema (state), model (numbers), figure (marks).
import { schema } from './schema.js';
import { compute, table } from './model.js';
import { QuantizationFigure, quantizationHeight } from '../../figures/quantization.js';
import { kernelColors } from '../../figures/palette.js';
import { fmt } from '../../figures/format.js';

export const quantization = {
  id: 'quantization',
  label: 'Quantization',
  summary: "a quantizer's levels over the values, its error, and what it does to a softmax output",
  schema,
  // its data's shape (data-shape.js: the types; its nested parts by their type only, so no results file)
  dataShape: () => import('./data-shape.js').then((m) => m.dataShape),
  compute,
  table,
  // one sentence of what the figure shows (screen readers, once the numbers settle)
  describe: (d) => (d.error ? `${d.scheme}: ${d.error}`
    : `${d.scheme}: MSE ${fmt(d.metrics.mse, 3)}, SQNR ${fmt(d.metrics.sqnr_db, 3)} dB, ${d.metrics.levels} levels used${d.effect && !d.effect.error ? `; softmax KL ${fmt(d.effect.kl, 3)}, argmax ${d.effect.argmaxKept ? 'kept' : 'changed'}` : ''}`),
  Figure: QuantizationFigure,
  height: quantizationHeight,
  width: 720,
  colors: (ss) => kernelColors(ss, 'quantizer'),
};
export default quantization;

// What the playground's View builds its controls from.
export { schemeKernel, learnsLayer } from './schema.js';
