// The files of a view's figure for a state: SVG, CSV and JSON — one function
// for `softscope figure` and the playground's export buttons, so both write
// the same bytes for the same state and numbers.
import { html } from '../figures/h.js';
import { svgString } from '../figures/render.js';
import { toHash, parse, stateEntries } from '../state/schema.js';
import { view } from './index.js';
import { csv, plain } from './data.js';

/** { svg, csv, json, width, height } of a view for a state and its computed data. */
export function figureFiles(ss, v, state, data, { width, height, theme = 'light', input = true } = {}) {
  const w = width ?? v.width;
  const h = height ?? v.height(data, w, { input });
  const svg = svgString(html`<${v.Figure} data=${data} colors=${v.colors(ss)} theme=${theme} width=${w} height=${h} input=${input} />`);
  // build: the wasm build whose kernels computed the numbers ('relaxed', 'simd' or 'scalar')
  const json = JSON.stringify({ view: v.id, state: toHash(v.schema, state, ss), build: ss.build, data: plain(data) }, null, 1) + '\n';
  return { svg, csv: csv(v, data), json, width: w, height: h };
}

/**
 * A view's figure for a state, headless: { svg, data, state, notices }.
 * stateText: a playground link's hash or key=value pairs (invalid keys fall
 * back to defaults, listed in notices).
 */
export function renderFigure(ss, id, stateText = '', { width, height, theme = 'light' } = {}) {
  const v = view(id);
  const { state, notices } = parse(v.schema, stateEntries(stateText), ss, { ignore: ['view'] });
  const data = v.compute(ss, state);
  return { ...figureFiles(ss, v, state, data, { width, height, theme }), data, state, notices };
}

export { plain, csv };
