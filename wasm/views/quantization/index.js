// The Quantization view: schema (state), model (numbers), figure (marks).
import { schema } from './schema.js';
import { compute, table } from './model.js';
import { QuantizationFigure, quantizationHeight } from '../../figures/quantization.js';
import { kernelColors } from '../../figures/palette.js';

export const quantization = {
  id: 'quantization',
  label: 'Quantization',
  summary: "a quantizer's levels over the values, its error, and what it does to a softmax output",
  schema,
  compute,
  table,
  Figure: QuantizationFigure,
  height: quantizationHeight,
  width: 720,
  colors: (ss) => kernelColors(ss, 'quantizer'),
};
export default quantization;
