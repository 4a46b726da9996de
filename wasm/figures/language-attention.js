// The Language figure's attention section (bertviz's matrix, for one
// validation window): the selected run's layer data.layer, the head
// data.head large with its tokens (queries down, keys across, BOS marked),
// every head of the layer small beside it; under them the BOS mass of every
// head of every layer as bars — split by the query's token on
// Bigram-Backcopy (after a trigger, the head must copy: "active"; elsewhere
// weight on BOS is a no-op: "dormant") — with the sink threshold labelled,
// and a line per layer of the residual stream's measures.
import { html } from './h.js';
import { Text, linear } from './axes.js';
import { RampLegend } from './legend.js';
import { pngDataUri, upscaleRgba } from './raster.js';
import { attentionRaster, weightMax, weightRamps, labelled } from './raster-weights.js';
import { fmt } from './format.js';
import { sectionTitle, LINE } from './experiments-plot.js';
import { shown } from './language-plot.js';
import { LabelledRule } from './language-plot.js';

const TITLE = 'Attention and sinks';
const SINK = 0.3, LAB = 34, BAR_H = 120, LEG = 70;

function subtitle(r, ins) {
  return ins ? `of ${r.name}: layer ${ins.layer} on a validation window of ${ins.n} tokens; BOS mass of every head; the residual stream by layer`
    : 'the attention of a validation window by layer and head, and each head\u2019s mass on BOS, after training';
}

// the inspection when its maps are whole: heads x n x n
function shapeOf(ins) {
  if (!ins || !(ins.n >= 1)) return null;
  const heads = ins.maps.length / (ins.n * ins.n);
  return Number.isInteger(heads) && heads >= 1 ? { n: ins.n, heads } : null;
}

function sizes(width, s) {
  const big = Math.floor(Math.max(150, Math.min(320, width * 0.34)));
  const rest = width - 16 - LAB - big - 40 - LEG;
  const small = s ? Math.floor(Math.max(56, Math.min(120, rest / Math.min(4, s.heads) - 10))) : 80;
  const perRow = Math.max(1, Math.floor(rest / (small + 10)));
  return { big, small, perRow };
}

const CAPTIONS = (bb) => [
  'BOS mass: the mean attention weight on BOS (position 0) of the queries at positions ≥ 1. A head is a sink when its queries'
    + `${bb ? ' that do not follow a trigger' : ''} put more than ${SINK} on BOS (Gu et al. 2025's threshold).`,
  ...(bb ? ['Bigram-Backcopy: after a trigger the head must copy the token before it ("active"); after any other token the next one follows the bigram table,'
    + ' and a head that parks its weight on BOS there is "dormant" (Guo et al. 2024).'] : []),
  'Residual: the norm of BOS\u2019s residual vector against the mean of the other positions\u2019 (a peak at BOS is Guo et al.\u2019s residual peak); kurtosis and max/median of its values (massive activations).',
];

export function attentionHeight(data, runs, sel, width) {
  const r = runs[sel], ins = r?.inspect, s = shapeOf(ins);
  const head = sectionTitle(TITLE, subtitle(r, ins), 0, width).height;
  if (!ins) return head + 6;
  const z = sizes(width, s);
  const maps = s ? Math.max(LAB + z.big + 40, 20 + Math.ceil(s.heads / z.perRow) * (z.small + 26)) : 0;
  const bb = ins.trigger.some((t) => t);
  return head + maps + 30 + BAR_H + 46 + LINE * ins.residual.length + 8 + LINE * CAPTIONS(bb).length * 2 + 8;
}

// the pictures of a run's maps on one scale, once per maps array and theme
const IMAGES = new WeakMap();
function images(maps, s, th) {
  if (!IMAGES.has(maps)) IMAGES.set(maps, new Map());
  const c = IMAGES.get(maps);
  if (!c.has(th.name)) {
    const all = Float64Array.from(maps, (v) => v ?? 0), hi = weightMax(all), nn = s.n * s.n, k = Math.max(1, Math.floor(128 / s.n));
    c.set(th.name, { hi, uris: Array.from({ length: s.heads }, (_, h) =>
      pngDataUri(upscaleRgba(attentionRaster(all.subarray(h * nn, (h + 1) * nn), s.n, s.n, th, hi), s.n, s.n, k), s.n * k, s.n * k, 1)) });
  }
  return c.get(th.name);
}

function Map1({ uri, x, y, size, th, outline, children, ...rest }) {
  return html`<g ...${rest}>
    <image href=${uri} x=${x} y=${y} width=${size} height=${size} preserveAspectRatio="none" image-rendering="optimizeSpeed" style="image-rendering: pixelated" />
    <rect x=${x} y=${y} width=${size} height=${size} fill="none" stroke=${outline ?? th.frame} stroke-width=${outline ? 2 : 1} />
    ${children}
  </g>`;
}

function HeadBars({ ins, r, data, x0, y0, width, th }) {
  const heads = ins.heads, bb = ins.trigger.some((t) => t) || heads.some((h) => h.bosMassTrigger !== null);
  const bx = { x: x0 + 40, y: y0, w: Math.max(100, width - x0 - 56), h: BAR_H };
  bx.right = bx.x + bx.w; bx.bottom = bx.y + bx.h;
  const y = linear([0, 1], [bx.bottom, bx.y], 0);
  const gw = bx.w / Math.max(1, heads.length), bw = Math.max(2, Math.min(18, (gw - 6) / (bb ? 2 : 1)));
  const series = bb ? [['bosMassTrigger', 'after a trigger (active)', 0.45], ['bosMassOther', 'other queries (dormant when high)', 1]] : [['bosMass', 'all queries', 1]];
  return html`<g data-chart="bos-mass">
    <${Text} x=${x0} y=${y0 - 8} th=${th} weight="600" size=${11.5}>${`BOS mass per head (layer:head) of ${r.name}`}<tspan fill=${th.muted} font-weight="400">${
      `  ${series.map(([, l], i) => `${i ? ' · ' : ''}${i ? '■' : '▪'} ${l}`).join('')}`}</tspan></${Text}>
    ${[0, 0.5, 1].map((v) => html`<g key=${v}><line x1=${bx.x} x2=${bx.right} y1=${y(v)} y2=${y(v)} stroke=${th.grid} />
      <text x=${bx.x - 5} y=${y(v)} dy="0.32em" text-anchor="end" font-size="10.5" fill=${th.muted}>${fmt(v, 2)}</text></g>`)}
    <${LabelledRule} bx=${bx} y=${y} v=${SINK} th=${th} id="sink" color=${th.warn} label=${`sink threshold ${SINK}`} title=${`a head is a sink above ${SINK} on BOS`} />
    ${heads.map((h, i) => {
      const gx = bx.x + i * gw + (gw - bw * series.length) / 2;
      return html`<g key=${i} data-head=${`${h.layer}:${h.head}`} data-sink=${h.sink ? '1' : '0'}>
        ${series.map(([k, label, op], j) => (h[k] === null ? null : html`<rect key=${k} x=${gx + j * bw} y=${y(h[k])} width=${bw - 1} height=${Math.max(0.5, bx.bottom - y(h[k]))}
          fill=${r.color} opacity=${op} data-metric=${k} data-value=${String(h[k])}><title>${`layer ${h.layer} head ${h.head}, ${label}: ${fmt(h[k], 3)}`}</title></rect>`))}
        ${h.sink && html`<${Text} x=${gx + (bw * series.length) / 2} y=${bx.y - 2} th=${th} size=${9.5} anchor="middle" color=${th.warn}>sink</${Text}>`}
        ${(heads.length <= 24 || i % Math.ceil(heads.length / 24) === 0) && html`<text x=${bx.x + (i + 0.5) * gw} y=${bx.bottom + 12} text-anchor="middle" font-size="9.5" fill=${th.muted}>${`${h.layer}:${h.head}`}</text>`}
      </g>`;
    })}
    <rect x=${bx.x} y=${bx.y} width=${bx.w} height=${bx.h} fill="none" stroke=${th.frame} />
    <text transform=${`translate(${bx.x - 32} ${bx.y + bx.h / 2}) rotate(-90)`} text-anchor="middle" font-size="11" fill=${th.muted}>weight on BOS</text>
  </g>`;
}

export function Attention({ data, runs, sel, y0, width, th }) {
  const r = runs[sel], ins = r?.inspect;
  const T = sectionTitle(TITLE, subtitle(r, ins), y0, width, th);
  if (!ins) return html`<g data-section="attention">${T.el}</g>`;
  const s = shapeOf(ins), z = sizes(width, s);
  const bos = data.bos;
  let y = y0 + T.height;
  let mapsEl = null;
  if (s) {
    const img = images(ins.maps, s, th);
    const hsel = Math.min(s.heads - 1, Math.max(0, data.head));
    const bx = 8 + LAB, by = y + LAB + 6, c = z.big / s.n;
    const ticks = labelled(s.n, z.big, 11);
    const label = (i) => shown(ins.texts[i], bos);
    const sx = bx + z.big + 24 + 16;
    mapsEl = html`<g data-maps=${String(ins.layer)}>
      <${Map1} uri=${img.uris[hsel]} x=${bx} y=${by} size=${z.big} th=${th} data-map=${`${ins.layer}:${hsel}`}>
        <${Text} x=${bx} y=${by - 22} th=${th} size=${11.5} weight="600">${`layer ${ins.layer} · head ${hsel}`}</${Text}>
        ${bos && html`<g data-bos="key"><path d=${`M${bx + c / 2 - 4},${by - 9}l4,6l4,-6z`} fill=${th.warn} /><${Text} x=${bx + c / 2 + 6} y=${by - 3} th=${th} size=${9.5} color=${th.warn}>BOS</${Text}></g>`}
        <g font-size="9.5" fill=${th.muted} font-family="ui-monospace, Menlo, Consolas, monospace">
          ${ticks.map((i) => html`<text key=${i} x=${bx - 3} y=${by + (i + 0.5) * c} dy="0.32em" text-anchor="end" fill=${ins.trigger[i] ? th.warn : th.muted}
            xml:space="preserve">${label(i)}</text>`)}
          ${ticks.map((i) => html`<text key=${`k${i}`} x=${bx + (i + 0.5) * c} y=${by + z.big + 11} text-anchor="middle" xml:space="preserve">${label(i)}</text>`)}
        </g>
      </${Map1}>
      ${Array.from({ length: s.heads }, (_, h) => {
        const col = h % z.perRow, row = Math.floor(h / z.perRow), x = sx + col * (z.small + 10), yy = y + 20 + row * (z.small + 26);
        const m = ins.heads.find((e) => e.layer === ins.layer && e.head === h);
        return html`<${Map1} key=${h} uri=${img.uris[h]} x=${x} y=${yy} size=${z.small} th=${th} outline=${h === hsel ? r.color : null} data-map-small=${`${ins.layer}:${h}`}>
          <${Text} x=${x} y=${yy - 5} th=${th} size=${10.5}>${`head ${h}`}${m?.sink ? html`<tspan fill=${th.warn}>${' · sink'}</tspan>` : ''}</${Text}>
        </${Map1}>`;
      })}
      <${RampLegend} x=${width - LEG + 8} y=${y + 30} h=${Math.min(z.big - 40, 140)} ramp=${weightRamps(th).pos} lo=${0} hi=${1} th=${th}
        label="weight" format=${(t) => fmt(img.hi * t * t, 2)} zeroNote="exact 0" />
    </g>`;
    y += Math.max(LAB + z.big + 40, 20 + Math.ceil(s.heads / z.perRow) * (z.small + 26));
  }
  const bb = ins.trigger.some((t) => t);
  const yb = y + 30;
  const yr = yb + BAR_H + 40;
  return html`<g data-section="attention" data-sel=${r.name}>
    ${T.el}
    ${mapsEl}
    <${HeadBars} ins=${ins} r=${r} data=${data} x0=${8} y0=${yb} width=${width} th=${th} />
    ${ins.residual.map((q, i) => html`<${Text} key=${i} x=${8} y=${yr + i * LINE} th=${th} size=${11} color=${th.muted} data-residual=${String(q.layer)}>${
      `residual ${q.layer === ins.residual.length - 1 ? 'after the last layer' : `entering layer ${q.layer}`}: BOS norm `}<tspan fill=${th.ink}>${fmt(q.bosNorm, 3)}</tspan>${
      ' against '}<tspan fill=${th.ink}>${fmt(q.meanNorm, 3)}</tspan>${' elsewhere · kurtosis '}<tspan fill=${th.ink} data-metric="kurtosis" data-value=${String(q.kurtosis)}>${fmt(q.kurtosis, 3)}</tspan>${
      ' · max/median '}<tspan fill=${th.ink}>${fmt(q.maxMedian, 3)}</tspan></${Text}>`)}
    ${CAPTIONS(bb).flatMap((c) => wrapTwo(c, width)).map((l, i) => html`<${Text} key=${i} x=${8} y=${yr + ins.residual.length * LINE + 6 + i * LINE} th=${th} size=${10.5} color=${th.muted} data-caption>${l}</${Text}>`)}
  </g>`;
}

// a caption in at most two lines at the width (10.5 px text, about 5.9 px a character)
function wrapTwo(text, width) {
  const max = Math.max(40, Math.floor((width - 16) / 5.9));
  if (text.length <= max) return [text, ''].slice(0, 1).concat(['']);
  const cut = text.lastIndexOf(' ', max);
  const a = text.slice(0, cut > 0 ? cut : max), b = text.slice(cut > 0 ? cut + 1 : max);
  return [a, b.length > max ? `${b.slice(0, max - 1)}…` : b];
}
