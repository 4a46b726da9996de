// The Dispersion figure: against n on a log2 axis, (1) the key's and the
// largest probability, (2) the entropy with ln n (the uniform maximum) for
// reference, (3) the support size with n for reference; one colour per
// normalizer, key dashed. Points the current sweep has not reached yet (a
// partial run in the browser) are drawn faded. `hover` (an index of n) draws
// a rule and the values there in every chart; onHover reports the index
// under the pointer.
import { html } from './h.js';
import { Svg, Text, AxisX, AxisY, Frame, box, linear, logScale, powerTicks, pathOf } from './axes.js';
import { seriesLegend } from './legend.js';
import { theme } from './palette.js';
import { fmt } from './format.js';

const CHART_H = 260, HEAD = 26;

function layout(width) {
  const cols = width >= 780 ? 3 : width >= 520 ? 2 : 1;
  return { cols, cw: width / cols, rows: Math.ceil(3 / cols) };
}

export function dispersionHeight(data, width) {
  const l = layout(width);
  return 40 + l.rows * (CHART_H + HEAD) + 30;
}

function extent(series, keys, pos = false) {
  let lo = Infinity, hi = -Infinity;
  for (const s of series) for (const k of keys) for (const v of s[k]) if (Number.isFinite(v) && (!pos || v > 0)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  return lo <= hi ? [lo, hi] : null;
}

function Chart({ id, title, bx, n, lines, y, yTicks, yLabel, reference, th, hover, onHover, x }) {
  const xTicks = powerTicks(x, 2, Math.max(3, Math.floor(bx.w / 45)));
  const move = onHover && ((e) => {
    const r = e.currentTarget.getBoundingClientRect();
    const svg = e.currentTarget.ownerSVGElement;
    const k = svg ? svg.viewBox.baseVal.width / svg.getBoundingClientRect().width : 1;
    const px = bx.x + (e.clientX - r.left) * k;
    const target = x.invert(px);
    let best = 0;
    n.forEach((v, j) => { if (Math.abs(Math.log(v / target)) < Math.abs(Math.log(n[best] / target))) best = j; });
    onHover(best);
  });
  const hx = hover != null && hover < n.length ? x(n[hover]) : null;
  return html`<g data-chart=${id}>
    <${Text} x=${bx.x} y=${bx.y - 8} th=${th} weight="600">${title}</${Text}>
    <${AxisY} scale=${y} bx=${bx} th=${th} ticks=${yTicks} label=${yLabel} />
    <${AxisX} scale=${x} bx=${bx} th=${th} ticks=${xTicks} label="n (log scale)" />
    ${reference && html`<path d=${pathOf(n, reference.values, x, y)} fill="none" stroke=${th.muted} stroke-width="1" stroke-dasharray="1 3"
      data-reference=${id}><title>${reference.label}</title></path>`}
    ${lines.map((l) => html`<g key=${`${l.series}:${l.metric}`}>
      ${l.fresh < n.length && html`<path d=${pathOf(n.slice(Math.max(0, l.fresh - 1)), l.values.slice(Math.max(0, l.fresh - 1)), x, y)}
        fill="none" stroke=${l.color} stroke-width="1.6" opacity="0.3" stroke-dasharray=${l.dashed ? '5 3' : undefined} />`}
      <path d=${pathOf(n.slice(0, l.fresh), l.values.slice(0, l.fresh), x, y)} fill="none" stroke=${l.color} stroke-width="2"
        stroke-dasharray=${l.dashed ? '5 3' : undefined} data-series=${l.series} data-metric=${l.metric}
        data-value=${l.values.map((v) => String(v)).join(',')} />
    </g>`)}
    ${hx !== null && html`<g data-hover-n=${n[hover]}>
      <line x1=${hx} x2=${hx} y1=${bx.y} y2=${bx.bottom} stroke=${th.muted} />
      ${lines.map((l) => (Number.isFinite(y(l.values[hover])) && Number.isFinite(l.values[hover])
        ? html`<circle key=${l.series + l.metric} cx=${hx} cy=${y(l.values[hover])} r="3" fill=${l.color} />` : null))}
    </g>`}
    <${Frame} bx=${bx} th=${th} />
    ${onHover && html`<rect x=${bx.x} y=${bx.y} width=${bx.w} height=${bx.h} fill="transparent" onPointerMove=${move} onPointerDown=${move}
      onPointerLeave=${() => onHover(null)} />`}
  </g>`;
}

export function DispersionFigure({ data, colors, theme: t, width = 960, height, hover, onHover }) {
  const th = theme(t);
  const h = height ?? dispersionHeight(data, width);
  const l = layout(width);
  const { n, series } = data;
  const title = `dispersion: ${series.map((s) => s.name).join(', ')}`;
  if (!n.length) {
    return html`<${Svg} width=${width} height=${h} th=${th} title=${title} data-figure="dispersion">
      <${Text} x=${16} y=${30} th=${th} color=${th.warn}>${data.invalid.length ? data.invalid.map((i) => `${i.name}: ${i.error}`).join('; ') : 'no normalizer chosen'}</${Text}>
    </${Svg}>`;
  }
  const x = logScale([n[0], n[n.length - 1]], [0, 1], 2);
  const lines = (metrics) => series.flatMap((s) => metrics.map((m, i) => ({
    series: s.name, metric: m, color: colors?.get(s.name) ?? th.accent, values: s[m], fresh: s.fresh ?? n.length, dashed: i > 0,
  })));
  const slot = (i) => {
    const c = i % l.cols, r = Math.floor(i / l.cols);
    return box(c * l.cw, 40 + r * (CHART_H + HEAD) + HEAD, l.cw, CHART_H, { left: 56, right: 14, top: 4, bottom: 38 });
  };
  const charts = [];
  // (1) probability: linear, or log2 with 2^k ticks
  {
    const bx = slot(0);
    const xs = x.copy().range([bx.x, bx.right]);
    let y, ticks;
    if (data.probLog) {
      const e = extent(series, ['maxProb', 'keyProb'], true) ?? [2 ** -20, 1];
      y = logScale([Math.max(e[0], 2 ** -60), Math.max(1, e[1])], [bx.bottom, bx.y], 2);
      ticks = powerTicks(y, 2, 6);
    } else {
      const e = extent(series, ['maxProb', 'keyProb']) ?? [0, 1];
      y = linear([Math.min(0, e[0]), Math.max(1, e[1])], [bx.bottom, bx.y]);
    }
    charts.push(html`<${Chart} key="p" id="probability" title="probability: max (solid), key (dashed)" bx=${bx} n=${n} x=${xs} y=${y}
      yTicks=${ticks} yLabel="probability" lines=${lines(['maxProb', 'keyProb'])} th=${th} hover=${hover} onHover=${onHover} />`);
  }
  // (2) entropy, with ln n
  {
    const bx = slot(1);
    const xs = x.copy().range([bx.x, bx.right]);
    const e = extent(series, ['entropy']) ?? [0, 1];
    const y = linear([0, Math.max(Math.log(n[n.length - 1]), e[1]) * 1.04], [bx.bottom, bx.y]);
    charts.push(html`<${Chart} key="h" id="entropy" title="entropy (nats)" bx=${bx} n=${n} x=${xs} y=${y} yLabel="entropy H"
      lines=${lines(['entropy'])} reference=${{ values: n.map(Math.log), label: 'ln n: the uniform maximum' }} th=${th} hover=${hover} onHover=${onHover} />`);
  }
  // (3) support, log2, with n
  {
    const bx = slot(2);
    const xs = x.copy().range([bx.x, bx.right]);
    const y = logScale([1, n[n.length - 1]], [bx.bottom, bx.y], 2);
    charts.push(html`<${Chart} key="s" id="support" title="support size" bx=${bx} n=${n} x=${xs} y=${y} yTicks=${powerTicks(y, 2, 6)}
      yLabel="non-zero entries" lines=${lines(['support'])} reference=${{ values: n, label: 'n: everything' }} th=${th} hover=${hover} onHover=${onHover} />`);
  }
  const legend = seriesLegend(series.map((s) => ({ name: s.name, color: colors?.get(s.name) ?? th.accent,
    note: s.errors?.length ? `not at n = ${s.errors.map((e) => e.n).join(', ')}` : undefined })), { x: 16, y: 20, width: width - 32, th });
  return html`<${Svg} width=${width} height=${h} th=${th} title=${title} data-figure="dispersion">
    ${legend.el}
    ${charts}
    ${data.invalid.length > 0 && html`<${Text} x=${16} y=${h - 10} th=${th} size=${11} color=${th.warn}>
      left out: ${data.invalid.map((i) => `${i.name} (${i.error})`).join('; ')}</${Text}>`}
    <${Text} x=${width - 16} y=${h - 10} th=${th} size=${11} color=${th.muted} anchor="end">one key with logit m = ${fmt(data.margin, 3)} among n − 1 distractors</${Text}>
  </${Svg}>`;
}
