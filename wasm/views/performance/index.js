// The Performance view: schema (state), measure (timings: the runner, in a
// Web Worker in the browser, directly in Node), model (timings -> numbers),
// figure (a bar chart per kernel).
import { schema, BUILDS } from './schema.js';
import { compute, table } from './model.js';
import { PerformanceFigure, performanceHeight } from '../../figures/performance.js';
import { kernelColors, listColors } from '../../figures/palette.js';

export const performanceView = {
  id: 'performance',
  label: 'Performance',
  summary: 'the kernels timed in this engine: relaxed SIMD, SIMD128, scalar and plain JavaScript',
  schema,
  // compute(ss, state, timings): a pure function of the timings; measure(state, { onProgress }) takes them
  compute,
  table,
  measure: async (state, opts) => (await import('./measure.js')).measure(state, opts),
  Figure: PerformanceFigure,
  height: performanceHeight,
  width: 760,
  // builds by id (the bars), normalizers by name (the chooser's swatches): the two sets of names do not meet
  colors: (ss) => new Map([...kernelColors(ss, 'normalizer'), ...listColors(BUILDS, 10)]),
};
export default performanceView;
