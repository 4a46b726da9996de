// The Performance view: schema (state), measure (timings: the runner, in a
// Web Worker in the browser, directly in Node), model (timings -> numbers),
// figure (a bar chart per kernel).
import { schema, BUILDS } from './schema.js';
import { compute, table } from './model.js';
import { PerformanceFigure, performanceHeight } from '../../figures/performance.js';
import { listColors } from '../../figures/palette.js';
import { fmt, count } from '../../figures/format.js';
import { list } from '../describe.js';

export const performanceView = {
  id: 'performance',
  label: 'Performance',
  summary: 'the kernels timed in this engine: relaxed SIMD, SIMD128, scalar and plain JavaScript',
  schema,
  // its data's shape (data-shape.js: the types; its nested parts by their type only, so no results file)
  dataShape: () => import('./data-shape.js').then((m) => m.dataShape),
  // compute(ss, state, timings): a pure function of the timings; measure(state, { onProgress }) takes them
  compute,
  table,
  // one sentence of what the figure shows (screen readers, once the numbers settle)
  describe: (d) => (!d.ran ? `not run yet: ${d.kernels.map((k) => k.name).join(', ')} at n = ${count(d.n)}`
    : `at n = ${count(d.n)}, ns per element: ${list(d.kernels.map((k) => `${k.name} ${k.rows.map((r) => (r.error ? `${r.label} not run` : `${r.label} ${fmt(r.ns, 3)}`)).join(', ')}`))}`),
  measure: async (state, opts) => (await import('./measure.js')).measure(state, opts),
  Figure: PerformanceFigure,
  height: performanceHeight,
  width: 760,
  // the builds' colours (the bars, the builds chooser); a kernel is a panel here, not a colour
  colors: () => listColors(BUILDS),
};
export default performanceView;

// The playground's build badge names a build as this view does.
export { BUILD_LABELS } from './schema.js';
