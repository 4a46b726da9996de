// The Experiments figure — a placeholder until h-expfig's figure (curves,
// length generalisation, attention map, quantisation panel) lands: one line
// per normalizer with its accuracy at each test length, as text.
import { html } from './h.js';
import { Svg, Text } from './axes.js';
import { theme } from './palette.js';
import { fmt } from './format.js';

const ROW = 18, TOP = 28;

export function experimentsHeight(data) {
  return TOP + ROW * (1 + (data?.runs?.length ?? 0)) + 12;
}

export function ExperimentsFigure({ data, theme: t, width = 960, height }) {
  const th = theme(t);
  const h = height ?? experimentsHeight(data);
  const pct = (v) => (v === null || v === undefined ? '–' : `${fmt(100 * v, 3)} %`);
  const line = (r) => (r.error ? `${r.name}: ${r.error}` : r.diverged !== null ? `${r.name}: diverged at step ${r.diverged}`
    : `${r.name}: ${r.lengths.map((x) => `n ${x.n} ${pct(x.accuracy)}`).join(', ') || `step ${r.step} of ${data.steps}`}`);
  return html`<${Svg} width=${width} height=${h} th=${th} title=${`experiments: ${data.task}`}>
    <${Text} x=${12} y=${20} th=${th} weight="600">${`${data.task} (${data.phase})`}<//>
    ${data.runs.map((r, i) => html`<${Text} x=${12} y=${TOP + ROW * (i + 1)} th=${th} data-value=${r.lengths[0]?.accuracy ?? ''}>${line(r)}<//>`)}
  <//>`;
}
