// A bar chart of one vector over its indices: y axis with ticks (linear,
// from the domain, which holds 0), index ticks below, one <rect> per entry
// carrying data-index and data-value (the exact value drawn), so tests and
// tools read what is drawn. -Infinity (a masked logit) is drawn as a short
// hatched stub under the axis, and NaN not at all.
import { scaleBand } from './scale.js';
import { html } from './h.js';
import { AxisY, AxisX, Frame, linear } from './axes.js';
import { fmt } from './format.js';

/** The y domain that shows every finite value and 0, made nice. */
export function barDomain(values, { min, max } = {}) {
  let lo = 0, hi = 0;
  for (const v of values) if (Number.isFinite(v)) { if (v < lo) lo = v; if (v > hi) hi = v; }
  if (min !== undefined) lo = Math.min(lo, min);
  if (max !== undefined) hi = Math.max(hi, max);
  if (hi === lo) hi = lo + 1;
  return linear([lo, hi], [0, 1]).domain();
}

export function Bars({ bx, values, domain, color, th, id, highlight, yLabel, xLabel = 'index i', ticks = 4, labels, dim }) {
  const n = values.length;
  const x = scaleBand().domain([...Array(n).keys()]).range([bx.x, bx.right]).paddingInner(n <= 32 ? 0.15 : 0.05);
  const y = linear(domain ?? barDomain(values), [bx.bottom, bx.y], 0);
  const y0 = y(0);
  const every = Math.max(1, Math.ceil(n / Math.max(2, Math.floor(bx.w / 28))));
  const xt = [...Array(n).keys()].filter((i) => i % every === 0);
  return html`<g class="bars" data-bars=${id}>
    <${AxisY} scale=${y} bx=${bx} th=${th} ticks=${y.ticks(ticks)} label=${yLabel} zero />
    <${AxisX} scale=${x} bx=${bx} th=${th} ticks=${xt} format=${(i) => (labels ? labels[i] : String(i))} label=${xLabel} grid=${false} band />
    ${Array.from(values, (v, i) => {
      const w = Math.max(0.6, x.bandwidth());
      if (v === -Infinity) {
        return html`<g key=${i} data-index=${i} data-value="-Infinity">
          <rect x=${x(i)} y=${y0} width=${w} height="8" fill="none" stroke=${th.muted} stroke-dasharray="2 2" />
          <title>${`i = ${i}: −∞ (masked)`}</title></g>`;
      }
      if (!Number.isFinite(v)) return null;
      const yv = y(v);
      const faded = dim && dim[i];
      return html`<rect key=${i} x=${x(i)} y=${Math.min(yv, y0)} width=${w} height=${Math.abs(yv - y0)}
        fill=${faded ? th.dropped : color} stroke=${i === highlight ? th.ink : undefined} stroke-width=${i === highlight ? 1.2 : undefined}
        data-index=${i} data-value=${String(v)}><title>${`i = ${i}: ${fmt(v, 6)}`}</title></rect>`;
    })}
    <${Frame} bx=${bx} th=${th} />
  </g>`;
}
