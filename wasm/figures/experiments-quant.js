// The Experiments figure's quantisation section: each normalizer's test
// accuracy (at the training length) after its model's weights were
// quantized, against the bits, one colour per normalizer and one line style
// and marker per quantizer (a quantizer that exists only at 8 bits, fp8, is
// a single marker); the float model's accuracy as a dashed line in the
// normalizer's colour, chance dotted. Before the quantisation phase the
// chart stands empty and says so.
import { html } from './h.js';
import { Text, linear, pathOf } from './axes.js';
import { seriesLegend } from './legend.js';
import { pct } from './format.js';
import { Chart, Rule, slots, sectionTitle } from './experiments-plot.js';

const DASH = [undefined, '6 2 1.5 2', '1.5 2.5', '8 4'];
const FLOAT_DASH = '5 4';
const LEGEND_W = 230;

// A marker of quantizer k at (x, y): circle, square, triangle, diamond.
function marker(k, x, y, r) {
  switch (k % 4) {
    case 1: return `M${x - r},${y - r}h${2 * r}v${2 * r}h${-2 * r}z`;
    case 2: return `M${x},${y - r * 1.2}l${r * 1.1},${r * 2}h${-r * 2.2}z`;
    case 3: return `M${x},${y - r * 1.3}l${r * 1.3},${r * 1.3}l${-r * 1.3},${r * 1.3}l${-r * 1.3},${-r * 1.3}z`;
    default: return `M${x - r},${y}a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0`;
  }
}

/** The quantizers in the order they first appear (each run's list, then the next run's). */
export const quantizersOf = (runs) => [...new Set(runs.flatMap((r) => r.quant.map((q) => q.quantizer)))];

const TITLE = 'Quantisation';
function subtitle(data, runs) {
  const bits = bitsOf(data, runs);
  return quantizersOf(runs).length ? 'the models\u2019 test accuracy at the training length after post-training quantisation of their weights'
    : `quantized after testing, at ${bits.length ? bits[0] : 2}–${bits.length ? bits[bits.length - 1] : 8} bits`;
}
const bitsOf = (data, runs) => [...new Set([...data.bits, ...runs.flatMap((r) => r.quant.map((q) => q.bits))])].sort((a, b) => a - b);

/** The section's height at a width. */
export const quantHeight = (data, runs, width) => sectionTitle(TITLE, subtitle(data, runs), 0, width).height
  + slots(1, 0, width >= 640 ? width - LEGEND_W : width).height + (width >= 640 ? 0 : 24 + 14 * (quantizersOf(runs).length + 1)) + 6;

export function Quantization({ data, runs, y0, width, th }) {
  const side = width >= 640;
  const T = sectionTitle(TITLE, subtitle(data, runs), y0, width, th);
  const { boxes: [bx] } = slots(1, y0 + T.height, side ? width - LEGEND_W : width);
  const bits = bitsOf(data, runs);
  const lo = bits.length ? bits[0] : 2, hi = bits.length ? bits[bits.length - 1] : 8;
  const x = linear([lo - 0.5, hi + 0.5], [bx.x, bx.right], 0), y = linear([0, 1], [bx.bottom, bx.y]);
  const qs = quantizersOf(runs);
  const legend = seriesLegend([
    ...qs.map((q, k) => ({ name: q, color: th.ink, dash: DASH[k % DASH.length], key: k })),
    { name: 'float (not quantized)', color: th.muted, dash: FLOAT_DASH },
  ], side ? { x: width - LEGEND_W + 12, y: bx.y + 12, width: LEGEND_W - 20, th } : { x: 16, y: bx.bottom + 52, width: 200, th });
  return html`<g data-section="quantization">
    ${T.el}
    <${Chart} id="quant" title="accuracy against bits" bx=${bx} x=${x} y=${y} xTicks=${bits} yTicks=${y.ticks(5)} xLabel="bits" yLabel="accuracy" th=${th}>
      <${Rule} bx=${bx} y=${y} v=${data.chance} th=${th} dash="1.5 3" id="chance" label="chance: 1/C" />
      ${runs.map((r) => html`<g key=${r.name} data-quant-of=${r.name}>
        ${r.floatAccuracy !== null && html`<line x1=${bx.x} x2=${bx.right} y1=${y(r.floatAccuracy)} y2=${y(r.floatAccuracy)} stroke=${r.color}
          stroke-width="1.2" stroke-dasharray=${FLOAT_DASH} data-metric="float" data-value=${String(r.floatAccuracy)}><title>${`${r.name}: ${pct(r.floatAccuracy, 3)} in float`}</title></line>`}
        ${qs.map((q, k) => {
          const pts = r.quant.filter((p) => p.quantizer === q).sort((a, b) => a.bits - b.bits);
          const xs = pts.map((p) => p.bits), ys = pts.map((p) => p.accuracy);
          return html`<g key=${q}>
            <path d=${pathOf(xs, ys, x, y) || undefined} fill="none" stroke=${r.color} stroke-width="1.7" stroke-dasharray=${DASH[k % DASH.length]} />
            ${pts.map((p, j) => (ys[j] === null ? null : html`<path key=${j} d=${marker(k, x(xs[j]), y(ys[j]), 3.6)} fill=${r.color} stroke=${th.paper} stroke-width="0.8"
              data-quant=${q} data-run=${r.name} data-bits=${String(xs[j])} data-value=${String(ys[j])}><title>${`${r.name}, ${q}, ${xs[j]} bits: ${pct(ys[j], 3)}`}</title></path>`))}
          </g>`;
        })}
      </g>`)}
    </${Chart}>
    ${legend.el}
  </g>`;
}
