// The Quantization figure: the histogram of the values with the levels the
// scheme's output lands on drawn over it (a line per level, its height the
// number of values on it, read on the right axis), the error measures (MSE,
// max error, SQNR, levels used), then the effect on a softmax output: the
// largest entries before and after, with KL(before ‖ after) and whether the
// argmax is kept. A log axis (probability values) reads 10^k. With AdaRound,
// a layer of the values rounded both ways sits between the two
// (quantization-layer.js).
import { html } from './h.js';
import { Svg, Text, AxisX, AxisY, Frame, box, linear, logScale, powerTicks } from './axes.js';
import { Bars, barDomain } from './bars.js';
import { seriesLegend } from './legend.js';
import { fmt, count } from './format.js';
import { theme, rampColor } from './palette.js';
import { wrap, charsIn, titleLines, Title, SP, LINE } from './text.js';
import { Formula } from './math.js';
import { formulaParts, formulaLines } from './formula.js';
import { LayerRounding, layerLayout } from './quantization-layer.js';

const PAD = 12, HIST_H = 250, EFFECT_H = 190;
const sideBySide = (width) => width >= 560;

const paramText = (d) => d.paramsShown.map((p) => `${p.name} = ${p.choice ?? fmt(p.value, 4)}`).join(', ');
const effectText = (e) => (e.where === 'post' ? 'the probabilities are quantized, then renormalized' : 'the logits are quantized before the softmax');

function metricParts(d) {
  const m = d.metrics;
  return [['MSE ', 'mse', m.mse, fmt(m.mse, 4)], ['max error ', 'max_error', m.max_error, fmt(m.max_error, 4)],
    ['SQNR ', 'sqnr_db', m.sqnr_db, `${fmt(m.sqnr_db, 4)} dB`], ['levels used ', 'levels', m.levels, count(m.levels)]];
}
function effectParts(e) {
  return [['KL(before ‖ after) ', 'kl', e.kl, e.kl === Infinity ? `∞ (${count(e.zeros)} entries rounded to 0)` : `${fmt(e.kl, 4)} nats`],
    ['argmax ', 'argmax_kept', e.argmaxKept ? 1 : 0, e.argmaxKept ? 'kept' : 'changed']];
}

// values (neutral: the bins' colour is the zero line's, half transparent over the paper) and levels (the scheme's colour)
const binColor = (th) => rampColor([th.paper, th.zero], 0.55);
function legendOf(d, th, color, width) {
  return seriesLegend([{ name: 'values', color: binColor(th), shape: 'box' }, { name: 'levels of the output (height: values on it)', color: color ?? th.warn }],
    { x: 52, y: 0, width: width - 52, th });
}

function layout(d, width) {
  const L = { width };
  let y = 0;
  L.title = titleLines(d.scheme, `${paramText(d)} · ${d.sourceLabel}, n = ${count(d.n)}`, width);
  y += L.title.height;
  L.formula = d.formula ? formulaLines(d.formula, charsIn(width - 2 * PAD, 10.5)) : [];
  L.formulaY = y + 8;
  y += LINE * L.formula.length + 4;
  L.legend = y + 12;
  y += legendOf(d, theme('light'), null, width).height + 8;
  L.hist = y;
  y += HIST_H;
  L.metricsY = y + 10;
  y += 28;
  if (d.layer) {
    L.layerY = y;
    L.layer = layerLayout(d.layer, width, y);
    y = L.layer.end + 12;
  }
  L.effectTitle = titleLines('Effect on a softmax output', d.effect.error ? 'not computed' : effectText(d.effect), width);
  L.effectY = y;
  y += L.effectTitle.height;
  L.effect = y;
  L.effectError = d.effect.error ? wrap(d.effect.error, width - 2 * PAD, 12) : [];
  L.histError = d.error ? wrap(`${d.scheme}: ${d.error}`, width - 2 * 52 - 16, 12) : [];
  y += d.effect.error ? LINE * L.effectError.length + 12 : sideBySide(width) ? EFFECT_H : 2 * EFFECT_H;
  L.effectLineY = y + 8;
  y += d.effect.error ? 0 : 26 + (d.effect.total > d.effect.index.length ? LINE : 0);
  L.end = y + 4;
  return L;
}

/** The natural height of the figure at a width. */
export function quantizationHeight(d, width) {
  return Math.ceil(layout(d, width).end);
}

function Readout({ x, y, parts, th, ...rest }) {
  return html`<${Text} x=${x} y=${y} th=${th} size=${11.5} color=${th.muted} ...${rest}>
    ${parts.map(([label, name, v, text], i) => html`<tspan key=${name}>${`${i ? `${SP}·${SP}` : ''}${label.replace(/ $/, SP)}`}<tspan data-metric=${name}
      data-value=${String(v)} fill=${th.ink}>${text}</tspan></tspan>`)}
  </${Text}>`;
}

function Histogram({ d, L, bx, color, th }) {
  const h = d.hist, lv = (d.levels ?? []).filter((l) => !d.log || l.value > 0);
  const pos = (v) => (d.log ? Math.log10(v) : v);
  let lo = h.lo, hi = h.hi;
  for (const l of lv) { lo = Math.min(lo, pos(l.value)); hi = Math.max(hi, pos(l.value)); }
  const x = d.log ? logScale([10 ** lo, 10 ** hi], [bx.x, bx.right]) : linear([lo, hi], [bx.x, bx.right]);
  const at = (u) => x(d.log ? 10 ** u : u); // a bin edge (in histogram units) on the axis
  const maxC = Math.max(1, ...h.counts), maxL = Math.max(1, ...lv.map((l) => l.count));
  const yc = linear([0, maxC], [bx.bottom, bx.y], 4), yl = linear([0, maxL], [bx.bottom, bx.y], 4);
  const bw = (h.hi - h.lo) / h.counts.length;
  const xLabel = d.log ? `value (log scale${h.zeros ? `; ${count(h.zeros)} exact zeros not shown` : ''})` : 'value';
  return html`<g data-chart="quant-histogram">
    <${AxisY} scale=${yc} bx=${bx} th=${th} ticks=${yc.ticks(4)} label="values per bin" format=${(v) => count(v)} />
    <${AxisX} scale=${x} bx=${bx} th=${th} ticks=${d.log ? powerTicks(x, 10, 7) : x.ticks(7)} label=${xLabel} />
    ${lv.length > 0 && html`<g class="axis axis-y-right" font-size="11" fill=${color}>
      ${yl.ticks(4).filter(Number.isInteger).map((t) => html`<text key=${t} x=${bx.right + 5} y=${yl(t)} dy="0.32em" data-tick=${String(t)}>${count(t)}</text>`)}
      <text transform=${`translate(${bx.right + 40} ${bx.y + bx.h / 2}) rotate(90)`} text-anchor="middle">values on a level</text>
    </g>`}
    <g data-bins=${h.counts.length}>
      ${h.counts.map((c, i) => {
        const x0 = at(h.lo + i * bw), x1 = at(h.lo + (i + 1) * bw);
        return c > 0 && html`<rect key=${i} x=${x0} y=${yc(c)} width=${Math.max(0.5, x1 - x0 - 0.5)} height=${bx.bottom - yc(c)} fill=${binColor(th)}
          data-count=${c} data-value=${String(c)} />`;
      })}
    </g>
    <g data-levels=${lv.length}>
      ${lv.map((l) => {
        const px = x(l.value);
        return html`<line key=${l.value} x1=${px} x2=${px} y1=${bx.bottom} y2=${yl(l.count)} stroke=${color} stroke-width="1.5"
          data-level=${String(l.value)} data-count=${l.count} data-value=${String(l.value)}><title>${`level ${fmt(l.value, 6)}: ${l.count} values`}</title></line>`;
      })}
    </g>
    <${Frame} bx=${bx} th=${th} />
    ${L.histError.map((l, i) => html`<${Text} key=${i} x=${bx.x + 8} y=${bx.y + 18 + LINE * i} th=${th} color=${th.warn} data-error=${d.scheme}
      stroke=${th.paper} stroke-width="3" paint-order="stroke">${l}</${Text}>`)}
  </g>`;
}

function Effect({ d, L, color, th }) {
  const e = d.effect;
  if (e.error) return html`<g data-effect=${e.where}>${L.effectError.map((l, i) => html`<${Text} key=${i} x=${PAD} y=${L.effect + 16 + LINE * i} th=${th}
    color=${th.warn} data-error="effect">${l}</${Text}>`)}</g>`;
  const domain = barDomain([...e.before, ...e.after]);
  const labels = e.index.map(String);
  const two = sideBySide(L.width), w = two ? L.width / 2 : L.width;
  const panel = (j) => box(two ? j * w : 0, L.effect + (two ? 0 : j * EFFECT_H), w, EFFECT_H, { left: 52, top: 22, bottom: 36, right: 18 });
  const chart = (j, name, values, c) => {
    const bx = panel(j);
    return html`<g data-effect-chart=${name}>
      <${Text} x=${bx.x} y=${bx.y - 7} th=${th} size=${11} weight="600">${name}</${Text}>
      <${Bars} bx=${bx} values=${values} domain=${domain} color=${c} th=${th} id=${name} labels=${labels} yLabel="pᵢ" xLabel="entry i" />
    </g>`;
  };
  return html`<g data-effect=${e.where}>
    ${chart(0, 'before', e.before, binColor(th))}
    ${chart(1, 'after', e.after, color)}
    <${Readout} x=${PAD} y=${L.effectLineY + 6} parts=${effectParts(e)} th=${th} />
    ${e.total > e.index.length && html`<${Text} x=${PAD} y=${L.effectLineY + 6 + LINE} th=${th} size=${10.5} color=${th.muted}>
      ${`The ${e.index.length} largest of ${count(e.total)} entries.`}</${Text}>`}
  </g>`;
}

export function QuantizationFigure({ data: d, colors, theme: t, width = 720, height }) {
  const th = theme(t);
  const L = layout(d, width);
  const h = height ?? Math.ceil(L.end);
  const color = colors?.get(d.scheme) ?? th.warn;
  const legend = legendOf(d, th, color, width);
  return html`<${Svg} width=${width} height=${h} th=${th} data-figure="quantization" title=${`quantization: ${d.scheme} on ${d.sourceLabel}`}>
    <${Title} t=${L.title} title=${d.scheme} y=${0} th=${th} />
    ${L.formula.map((l, i) => html`<${Text} key=${i} x=${PAD} y=${L.formulaY + LINE * i} th=${th} size=${10.5} color=${th.muted} data-formula>
      <${Formula} parts=${formulaParts(l)} size=${10.5} /></${Text}>`)}
    <g transform=${`translate(0 ${L.legend})`}>${legend.el}</g>
    <${Histogram} d=${d} L=${L} bx=${box(0, L.hist, width, HIST_H, { left: 52, right: 52, bottom: 36 })} color=${color} th=${th} />
    ${d.metrics && html`<${Readout} x=${PAD} y=${L.metricsY + 6} parts=${metricParts(d)} th=${th} data-quant-metrics />`}
    ${d.layer && html`<line x1=${PAD} x2=${width - PAD} y1=${L.layerY} y2=${L.layerY} stroke=${th.grid} />
      <${LayerRounding} L=${d.layer} P=${L.layer} y0=${L.layerY + 2} th=${th} width=${width} color=${color} nearestColor=${binColor(th)} />`}
    <line x1=${PAD} x2=${width - PAD} y1=${L.effectY} y2=${L.effectY} stroke=${th.grid} />
    <${Title} t=${L.effectTitle} title="Effect on a softmax output" y=${L.effectY + 2} th=${th} />
    <${Effect} d=${d} L=${L} color=${color} th=${th} />
  </${Svg}>`;
}
