// What the Language figure's sections share: the runs with their colours, a
// token's text as shown (BOS, newline, space, controls), a labelled
// reference line, and chart boxes with room for a second (bits) axis on the
// right. The data is the view's: computed, or a results file checked against
// views/language/data-shape.js before it reaches a figure (texts are text,
// numbers finite or null), so nothing here reads it defensively.
import { html } from './h.js';
import { Text, box } from './axes.js';
import { fmt } from './format.js';
import { CHART_H, CHART_HEAD } from './experiments-plot.js';
import { SERIES } from './palette.js';


/** A token's text as a label: BOS for '' (when the data has BOS), ↵ for a newline, ␣ for a space, · for other controls. */
export function shown(t, bos = true) {
  const s = t ?? '';
  if (s === '') return bos ? 'BOS' : '';
  return s.replace(/\n/g, '↵').replace(/ /g, '␣').replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, '·');
}
/** Text as a line: newlines as ↵, controls as ·. */
export const line = (t) => (t ?? '').replace(/\n/g, '↵').replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g, '·');

/** The runs as the sections draw them: the data's, with a colour each (colors: name -> colour) and the lengths in order. */
export function runsOf(data, colors, th) {
  return data.runs.map((r, i) => ({
    ...r,
    color: colors?.get?.(r.name) ?? SERIES[i % SERIES.length] ?? th.accent,
    normParams: Object.entries(r.normParams),
    lengths: [...r.lengths].sort((x, y) => x.n - y.n),
  }));
}

/** k chart boxes in a row (or rows) from y0 with a right margin for a second axis: { boxes, height }. */
export function slotsR(k, y0, width, { right = 44, h = CHART_H } = {}) {
  const cols = Math.max(1, Math.min(k, width >= 700 ? k : 1)), cw = width / cols, rows = Math.ceil(k / cols);
  const boxes = Array.from({ length: k }, (_, i) => box((i % cols) * cw, y0 + Math.floor(i / cols) * (h + CHART_HEAD) + CHART_HEAD, cw, h,
    { left: 56, right, top: 4, bottom: 38 }));
  return { boxes, height: rows * (h + CHART_HEAD) };
}

/** A horizontal reference line with its label written at its right end (and its meaning as a tooltip). */
export function LabelledRule({ bx, y, v, th, label, title, id, dash = '4 3', color, above = true }) {
  if (v === null) return null;
  const yy = y(v);
  if (!(yy >= bx.y - 0.5 && yy <= bx.bottom + 0.5)) return null;
  return html`<g data-reference=${id} data-value=${String(v)}>
    <line x1=${bx.x} x2=${bx.right} y1=${yy} y2=${yy} stroke=${color ?? th.muted} stroke-width="1" stroke-dasharray=${dash}><title>${title ?? label}</title></line>
    <${Text} x=${bx.right - 4} y=${above ? yy - 4 : yy + 11} th=${th} size=${10} anchor="end" color=${color ?? th.muted}>${label}</${Text}>
  </g>`;
}

/** A second y axis on the right: the same scale read in bits (nats / ln 2). */
export function BitsAxis({ y, bx, th, label = 'bits' }) {
  const [lo, hi] = y.domain();
  const b0 = lo / Math.LN2, b1 = hi / Math.LN2;
  const step = [0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10].find((s) => (b1 - b0) / s <= 6) ?? 10;
  const ticks = [];
  for (let b = Math.ceil(b0 / step) * step; b <= b1 + 1e-9; b += step) ticks.push(b);
  return html`<g class="axis axis-bits" font-size="11" fill=${th.muted}>
    ${ticks.map((b) => html`<text key=${b} x=${bx.right + 5} y=${y(b * Math.LN2)} dy="0.32em" data-tick-bits=${String(b)}>${fmt(b, 3)}</text>`)}
    <text transform=${`translate(${bx.right + 36} ${bx.y + bx.h / 2}) rotate(90)`} text-anchor="middle">${label}</text>
  </g>`;
}
