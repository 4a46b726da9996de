// Legends: a row of coloured series keys, and a colour ramp with its scale
// for heat maps.
import { html } from './h.js';
import { rampColor } from './palette.js';
import { fmt } from './format.js';

// The key of one legend item, in a 16 x 10 box left of the name.
function key(it) {
  switch (it.shape) {
    case 'box': return html`<rect x="2" y="-9" width="12" height="10" fill=${it.color} />`;
    case 'outline': return html`<rect x="2.5" y="-8.5" width="11" height="9" fill="none" stroke=${it.color} />`;
    case 'dot': return html`<circle cx="8" cy="-4" r="2.6" fill=${it.color} />`;
    case 'tick': return html`<line x1="2" x2="14" y1="-4" y2="-4" stroke=${it.color} stroke-width="2" />`;
    default: return html`<line x1="0" x2="16" y1="-4" y2="-4" stroke=${it.color} stroke-width="3" stroke-dasharray=${it.dash ?? (it.dashed ? '4 3' : undefined)} />`;
  }
}

/** Keys in rows that wrap at `width`: [{ name, color, dashed? or dash (a dash array), note?, shape? }] (shape: 'line' (default),
 *  'box', 'outline', 'dot', 'tick'). Returns { el, height }. */
export function seriesLegend(items, { x, y, width, th }) {
  const rows = [];
  let cx = 0, row = [];
  for (const it of items) {
    const w = 26 + 7 * (it.name.length + (it.note ? it.note.length + 3 : 0));
    if (cx + w > width && row.length) { rows.push(row); row = []; cx = 0; }
    row.push({ ...it, dx: cx });
    cx += w;
  }
  if (row.length) rows.push(row);
  const el = html`<g class="legend" font-size="11" data-legend>
    ${rows.map((r, j) => r.map((it) => html`<g key=${it.name} transform=${`translate(${x + it.dx} ${y + 14 * j})`} data-legend-item=${it.name}>
      ${key(it)}
      <text x="21" y="0" fill=${th.ink}>${it.name}${it.note ? html`<tspan fill=${th.warn}>${`\u00a0(${it.note})`}</tspan>` : ''}</text>
    </g>`))}
  </g>`;
  return { el, height: 14 * rows.length };
}

/** A vertical colour ramp from lo (bottom) to hi (top) with three labels (steps: its bands, for a banded map). */
export function RampLegend({ x, y, h, ramp, lo, hi, label, th, format = (v) => fmt(v, 3), zeroNote, steps = 24 }) {
  const sh = h / steps;
  return html`<g class="ramp-legend" font-size="10" fill=${th.muted} data-ramp=${`${lo},${hi}`}>
    ${Array.from({ length: steps }, (_, i) => html`<rect key=${i} x=${x} y=${y + h - (i + 1) * sh} width="10" height=${sh + 0.5}
      fill=${rampColor(ramp, (i + 0.5) / steps)} />`)}
    <rect x=${x} y=${y} width="10" height=${h} fill="none" stroke=${th.frame} />
    <text x=${x + 14} y=${y + 4} dy="0.32em">${format(hi)}</text>
    <text x=${x + 14} y=${y + h / 2} dy="0.32em">${format((lo + hi) / 2)}</text>
    <text x=${x + 14} y=${y + h} dy="0.32em">${format(lo)}</text>
    ${label && html`<text x=${x} y=${y - 6}>${label}</text>`}
    ${zeroNote && html`<g><rect x=${x} y=${y + h + 8} width="10" height="10" fill=${th.zeroCell} stroke=${th.frame} /><text x=${x + 14} y=${y + h + 13} dy="0.32em">${zeroNote}</text></g>`}
  </g>`;
}
