// The SVG of `softscope optimize --svg`: the Optimizers view's figure for the
// race these command-line options describe.
import { VIEWS, parse } from '../views/index.js';
import { figureFiles } from '../views/files.js';

export function raceFigure(ss, o, compare) {
  const v = VIEWS.find((x) => x.id === 'optimizers');
  if (!v) throw new Error('the optimizers view is not available');
  const entries = [['fn', o.fn], ['kernels', [o.optimizer, ...compare].join(',')]];
  for (const k of ['steps', 'noise', 'clip', 'seed', 'warmup', 'schedule']) if (o[k] !== undefined) entries.push([k, String(o[k])]);
  if (o.start) entries.push(['start', o.start.join(',')]);
  for (const [p, val] of Object.entries(o.params ?? {})) entries.push([`${o.optimizer}.${p}`, String(val)]);
  const { state } = parse(v.schema, entries, ss);
  return figureFiles(ss, v, state, v.compute(ss, state)).svg;
}
