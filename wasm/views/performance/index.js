// The Performance view: schema (state), measure (timings: the runner, in a
// Web Worker in the browser, directly in Node), model (timings -> numbers),
// figure (a bar chart per kernel).
import { schema, BUILDS } from './schema.js';
import { compute, table } from './model.js';
import { PerformanceFigure, performanceHeight } from '../../figures/performance.js';
import { listColors } from '../../figures/palette.js';

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
  // the builds' colours (the bars, the builds chooser); a kernel is a panel here, not a colour
  colors: () => listColors(BUILDS),
};
export default performanceView;
