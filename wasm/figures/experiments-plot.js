// What the Experiments figure's sections share: the runs with their colours,
// the values a mark carries, and a chart (title, axes, frame, its marks
// clipped to the plot) in a row of slots. The data is the view's: computed,
// or a results file checked against views/experiments/data-shape.js before
// it reaches a figure (names are text, numbers finite or null), so nothing
// here reads it defensively.
import { html } from './h.js';
import { Text, AxisX, AxisY, Frame, box } from './axes.js';
import { titleLines, Title } from './text.js';
import { SERIES } from './palette.js';

export const CHART_H = 200, CHART_HEAD = 26, LINE = 15;

/** The data-value of a line: its numbers as written (a gap: empty), comma separated; no points: no attribute
 *  (an empty attribute is written bare, which is not XML). */
export const values = (a) => a.map((v) => (v === null ? '' : String(v))).join(',') || undefined;

/** The runs as the sections draw them: the data's, with a colour each and the tested lengths in order. */
export function runsOf(data, colors, th) {
  return data.runs.map((r, i) => ({
    ...r,
    color: colors?.get?.(r.name) ?? SERIES[i % SERIES.length] ?? th.accent,
    normParams: Object.entries(r.normParams),
    lengths: [...r.lengths].sort((a, b) => a.n - b.n),
  }));
}

/** Charts per row at a width. */
export const columns = (width, k) => Math.max(1, Math.min(k, width >= 780 ? 3 : width >= 520 ? 2 : 1));

/** k chart boxes in rows from y0: { boxes, height }. */
export function slots(k, y0, width) {
  const cols = columns(width, k), cw = width / cols, rows = Math.ceil(k / cols);
  const boxes = Array.from({ length: k }, (_, i) => box((i % cols) * cw, y0 + Math.floor(i / cols) * (CHART_H + CHART_HEAD) + CHART_HEAD, cw, CHART_H,
    { left: 56, right: 14, top: 4, bottom: 38 }));
  return { boxes, height: rows * (CHART_H + CHART_HEAD) };
}

/** A chart: its title, axes and frame, and the marks (children) clipped to the plot. */
export function Chart({ id, title, bx, x, y, xTicks, yTicks, xLabel, yLabel, yFormat, th, children }) {
  return html`<g data-chart=${id}>
    <${Text} x=${bx.x} y=${bx.y - 9} th=${th} weight="600">${title}</${Text}>
    <${AxisY} scale=${y} bx=${bx} th=${th} ticks=${yTicks} label=${yLabel} format=${yFormat} />
    <${AxisX} scale=${x} bx=${bx} th=${th} ticks=${xTicks} label=${xLabel} />
    <svg x=${bx.x} y=${bx.y} width=${bx.w} height=${bx.h} viewBox=${`${bx.x} ${bx.y} ${bx.w} ${bx.h}`} overflow="hidden">${children}</svg>
    <${Frame} bx=${bx} th=${th} />
  </g>`;
}

/** A horizontal reference line across a plot (chance, a threshold), dashed, with its meaning as a tooltip. */
export const Rule = ({ bx, y, v, th, dash = '4 3', label, id, color }) => (v === null ? null : html`<line x1=${bx.x} x2=${bx.right}
  y1=${y(v)} y2=${y(v)} stroke=${color ?? th.muted} stroke-width="1" stroke-dasharray=${dash} data-reference=${id} data-value=${String(v)}><title>${label}</title></line>`);

/** An × of half-size r at (x, y), as a path. */
export const cross = (x, y, r) => `M${(x - r).toFixed(2)},${(y - r).toFixed(2)}L${(x + r).toFixed(2)},${(y + r).toFixed(2)}M${(x + r).toFixed(2)},${(y - r).toFixed(2)}L${(x - r).toFixed(2)},${(y + r).toFixed(2)}`;

/** A run's name with its colour key, at (x, y). */
export const RunName = ({ r, x, y, th }) => html`<${Text} x=${x} y=${y} th=${th} weight="600"><tspan fill=${r.color}>■</tspan>${`\u00a0${r.name}`}</${Text}>`;

/** A section's title and its subtitle (wrapped below when they do not fit): { el, height } at y0. */
export function sectionTitle(title, sub, y0, width, th) {
  const t = titleLines(title, sub, width, 8);
  return { height: t.height + 6, el: html`<${Title} t=${t} title=${title} y=${y0} th=${th} pad=${8} />` };
}
