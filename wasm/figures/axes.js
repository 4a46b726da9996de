// Axes for every chart: grid lines, tick marks with labels, axis titles.
// Linear ticks come from d3-scale (nice steps); log axes tick at whole
// powers and read 10^k (or 2^k), never 1e1.4.
import { scaleLinear, scaleLog } from './scale.js';
import { html } from './h.js';
import { fmt } from './format.js';

const FONT = 11;

/** A box inside width x height with margins: { x, y, w, h, right, bottom }. */
export function box(x, y, width, height, m = {}) {
  const l = m.left ?? 46, r = m.right ?? 10, t = m.top ?? 10, b = m.bottom ?? 34;
  const bx = { x: x + l, y: y + t, w: Math.max(10, width - l - r), h: Math.max(10, height - t - b) };
  return { ...bx, right: bx.x + bx.w, bottom: bx.y + bx.h };
}

/** A linear scale over a domain made nice, mapped onto [r0, r1]. */
export function linear(domain, range, nice = 5) {
  let [lo, hi] = domain;
  if (!(hi > lo)) { lo = Number.isFinite(lo) ? lo - 0.5 : 0; hi = lo + 1; }
  const s = scaleLinear().domain([lo, hi]).range(range);
  return nice ? s.nice(nice) : s;
}

/** A log scale (base 10 or 2) over whole powers covering the domain. */
export function logScale(domain, range, base = 10) {
  let [lo, hi] = domain;
  if (!(lo > 0)) lo = hi > 0 ? hi / 1e6 : 1e-6;
  if (!(hi > lo)) hi = lo * base;
  const e0 = Math.floor(Math.log(lo) / Math.log(base) + 1e-9), e1 = Math.ceil(Math.log(hi) / Math.log(base) - 1e-9);
  return scaleLog().base(base).domain([base ** e0, base ** Math.max(e1, e0 + 1)]).range(range).clamp(true);
}

/** Whole-power ticks of a log scale: at most `max` of them, evenly thinned. */
export function powerTicks(scale, base = 10, max = 7) {
  const [a, b] = scale.domain();
  const e0 = Math.round(Math.log(a) / Math.log(base)), e1 = Math.round(Math.log(b) / Math.log(base));
  const every = Math.max(1, Math.ceil((e1 - e0 + 1) / max));
  const out = [];
  for (let e = e0; e <= e1; e += every) out.push({ value: base ** e, base, exp: e });
  return out;
}

/** A power as SVG text: base with a raised exponent. */
export function Power({ base, exp }) {
  return html`${base}<tspan dy="-0.45em" font-size="0.75em">${String(exp).replace('-', '−')}</tspan>`;
}

const tickLabel = (t, format) => (t && typeof t === 'object' ? html`<${Power} base=${t.base} exp=${t.exp} />` : format(t));
const tickValue = (t) => (t && typeof t === 'object' ? t.value : t);

/** Left axis with horizontal grid lines across the box. ticks: numbers or powerTicks(). */
export function AxisY({ scale, bx, ticks, format = (v) => fmt(v, 3), label, th, zero = false }) {
  const ts = ticks ?? scale.ticks(5);
  return html`<g class="axis axis-y" font-size=${FONT} fill=${th.muted}>
    ${ts.map((t) => {
      const y = scale(tickValue(t));
      const isZero = zero && tickValue(t) === 0;
      return html`<g key=${String(tickValue(t))}>
        <line x1=${bx.x} x2=${bx.right} y1=${y} y2=${y} stroke=${isZero ? th.zero : th.grid} stroke-width="1" />
        <text x=${bx.x - 5} y=${y} dy="0.32em" text-anchor="end" data-tick=${String(tickValue(t))}>${tickLabel(t, format)}</text>
      </g>`;
    })}
    ${label && html`<text transform=${`translate(${bx.x - 36} ${bx.y + bx.h / 2}) rotate(-90)`} text-anchor="middle" fill=${th.muted}>${label}</text>`}
  </g>`;
}

/** Bottom axis with vertical grid lines (grid=false: tick marks only). */
export function AxisX({ scale, bx, ticks, format = (v) => fmt(v, 3), label, th, grid = true, band = false }) {
  const ts = ticks ?? scale.ticks(6);
  const at = (t) => scale(tickValue(t)) + (band ? scale.bandwidth() / 2 : 0);
  return html`<g class="axis axis-x" font-size=${FONT} fill=${th.muted}>
    ${ts.map((t) => {
      const x = at(t);
      return html`<g key=${String(tickValue(t))}>
        ${grid ? html`<line x1=${x} x2=${x} y1=${bx.y} y2=${bx.bottom} stroke=${th.grid} />`
          : html`<line x1=${x} x2=${x} y1=${bx.bottom} y2=${bx.bottom + 4} stroke=${th.frame} />`}
        <text x=${x} y=${bx.bottom + 15} text-anchor="middle" data-tick=${String(tickValue(t))}>${tickLabel(t, format)}</text>
      </g>`;
    })}
    ${label && html`<text x=${bx.x + bx.w / 2} y=${bx.bottom + 30} text-anchor="middle" fill=${th.muted}>${label}</text>`}
  </g>`;
}

/** The plot frame. */
export function Frame({ bx, th }) {
  return html`<rect x=${bx.x} y=${bx.y} width=${bx.w} height=${bx.h} fill="none" stroke=${th.frame} />`;
}

/** An SVG root every figure uses: size, background, font, and a title for screen readers. */
export function Svg({ width, height, th, title, children, ...rest }) {
  return html`<svg xmlns="http://www.w3.org/2000/svg" width=${width} height=${height} viewBox=${`0 0 ${width} ${height}`}
      font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif" font-size="12" role="img" aria-label=${title} ...${rest}>
    <title>${title}</title>
    <rect width=${width} height=${height} fill=${th.paper} />
    ${children}
  </svg>`;
}

/** A line of text (title, note). */
export function Text({ x, y, children, th, size = 12, weight, anchor = 'start', color, ...rest }) {
  return html`<text x=${x} y=${y} font-size=${size} font-weight=${weight} text-anchor=${anchor} fill=${color ?? th.ink} ...${rest}>${children}</text>`;
}

/** "M x y L x y ..." through the finite points; a non-finite value lifts the pen. */
export function pathOf(xs, ys, sx, sy) {
  let d = '', pen = false;
  for (let i = 0; i < xs.length; i++) {
    const px = sx(xs[i]), py = sy(ys[i]);
    if (!Number.isFinite(px) || !Number.isFinite(py) || !Number.isFinite(ys[i])) { pen = false; continue; }
    d += `${pen ? 'L' : 'M'}${px.toFixed(2)},${py.toFixed(2)}`;
    pen = true;
  }
  return d;
}
