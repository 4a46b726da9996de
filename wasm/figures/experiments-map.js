// The Experiments figure's attention section: the selected run's attention
// on a test example (data.sel), one map per layer and head (queries down,
// keys across, the Attention view's colours: exact zeros in the zero colour,
// one scale for all of the run's maps so heads compare), key 0 marked (the
// BOS item when the task has one, data.bos: where sinks form), and under
// each head the registry's head measures over the test set: sink rate,
// kurtosis and max/median of its output.
import { html } from './h.js';
import { Text } from './axes.js';
import { RampLegend } from './legend.js';
import { pngDataUri, upscaleRgba } from './raster.js';
import { attentionRaster, weightMax, weightRamps, labelled } from './raster-weights.js';
import { fmt, pct } from './format.js';
import { sectionTitle, LINE } from './experiments-plot.js';

const LAB = 30, LEG = 64, GAP = 18, TOP = 34, MIN = 96, MAX = 220;

const TITLE = 'Attention';
const subtitle = (r, s) => (r && s ? `of ${r.name} on test example 0 (n = ${s.n}) by layer and head; head measures over the test set`
  : 'the attention map by layer and head, with each head\u2019s sink rate, kurtosis and max/median, after testing');

// The map (its maps hold layers × heads × n × n weights: the data's shape), or null before the test.
const shapeOf = (map) => map ?? null;

/** Where the maps go: { cols, cell, rows, height } (the map of the selected run, or a placeholder). */
export function mapLayout(runs, sel, width) {
  const s = shapeOf(runs[sel]?.map);
  const heads = s?.heads ?? 1, layers = s?.layers ?? 1;
  const cols = Math.max(1, Math.min(heads, Math.floor((width - LEG) / (MIN + LAB + GAP))));
  const cell = Math.floor(Math.max(MIN, Math.min(MAX, (width - LEG) / cols - LAB - GAP)));
  const rows = layers * Math.ceil(heads / cols);
  const block = TOP + cell + 2 * LINE + 16;
  const title = sectionTitle(TITLE, subtitle(runs[sel], s), 0, width).height;
  return { s, cols, cell, rows, block, title, height: title + (s ? rows * block : 0) + 6 };
}

// The pictures of a run's maps (one per layer and head, on the run's common scale), once per map object and theme.
const IMAGES = new WeakMap();
function images(map, s, th) {
  if (!IMAGES.has(map)) IMAGES.set(map, new Map());
  const c = IMAGES.get(map);
  if (!c.has(th.name)) {
    const all = Float64Array.from(s.maps, (v) => v ?? 0), hi = weightMax(all), nn = s.n * s.n;
    const k = Math.max(1, Math.floor(128 / s.n));
    c.set(th.name, { hi, uris: Array.from({ length: s.layers * s.heads }, (_, i) =>
      pngDataUri(upscaleRgba(attentionRaster(all.subarray(i * nn, (i + 1) * nn), s.n, s.n, th, hi), s.n, s.n, k), s.n * k, s.n * k, 1)) });
  }
  return c.get(th.name);
}

function Measures({ m, x, y, th }) {
  const v = (name, value, text) => (value === null || value === undefined ? html`<tspan>—</tspan>`
    : html`<tspan fill=${th.ink} data-metric=${name} data-value=${String(value)}>${text(value)}</tspan>`);
  // "—" where the C library reports 0 for an undefined measure (a constant output, a zero median)
  const defined = (w) => (w > 0 ? fmt(w, 3) : '—');
  return html`<g>
    <${Text} x=${x} y=${y} th=${th} size=${11} color=${th.muted}>sink rate\u00a0${v('sink-rate', m?.sinkRate, (w) => pct(w, 3))}</${Text}>
    <${Text} x=${x} y=${y + LINE} th=${th} size=${11} color=${th.muted}>kurtosis\u00a0${v('kurtosis', m?.kurtosis, defined)}${' · max/median\u00a0'}${v('max-median', m?.maxMedian, defined)}</${Text}>
  </g>`;
}

export function AttentionMaps({ data, runs, sel, L, y0, width, th }) {
  const r = runs[sel];
  const head = sectionTitle(TITLE, subtitle(r, L.s), y0, width, th).el;
  if (!r || !L.s) return html`<g data-section="attention">${head}</g>`;
  const { s, cell, cols } = L;
  const img = images(r.map, s, th);
  const ticks = labelled(s.n, cell, 16);
  const per = Math.ceil(s.heads / cols);
  const maps = [];
  for (let l = 0; l < s.layers; l++) {
    for (let h = 0; h < s.heads; h++) {
      const row = l * per + Math.floor(h / cols), x0 = 8 + (h % cols) * (cell + LAB + GAP) + LAB, top = y0 + L.title + row * L.block + TOP;
      const m = r.heads.find((e) => e.layer === l && e.head === h);
      const c = cell / s.n;
      maps.push(html`<g key=${`${l}:${h}`} data-map=${`${l}:${h}`}>
        <${Text} x=${x0} y=${top - 20} th=${th} size=${11.5}>${`layer ${l} · head ${h}`}</${Text}>
        <image href=${img.uris[l * s.heads + h]} x=${x0} y=${top} width=${cell} height=${cell} preserveAspectRatio="none"
          image-rendering="optimizeSpeed" style="image-rendering: pixelated" />
        <rect x=${x0} y=${top} width=${cell} height=${cell} fill="none" stroke=${th.frame} />
        <g data-key-zero=${data.bos ? 'bos' : 'key0'}>
          <path d=${`M${x0 + c / 2 - 4},${top - 9}l4,6l4,-6z`} fill=${th.warn} />
          <${Text} x=${x0 + c / 2 + 6} y=${top - 3} th=${th} size=${9.5} color=${th.warn}>${data.bos ? 'BOS' : 'key 0'}</${Text}>
        </g>
        <g font-size="9.5" fill=${th.muted}>
          ${ticks.map((i) => html`<text key=${i} x=${x0 - 3} y=${top + (i + 0.5) * c} dy="0.32em" text-anchor="end">${i}</text>`)}
        </g>
        <${Measures} m=${m} x=${x0} y=${top + cell + 14} th=${th} />
      </g>`);
    }
  }
  const right = 8 + Math.min(s.heads, cols) * (cell + LAB + GAP) + 4;
  return html`<g data-section="attention" data-sel=${r.name}>
    ${head}
    ${maps}
    <${RampLegend} x=${right} y=${y0 + L.title + TOP + 10} h=${Math.min(cell - 20, 150)} ramp=${weightRamps(th).pos} lo=${0} hi=${1} th=${th}
      label="weight" format=${(t) => fmt(img.hi * t * t, 2)} zeroNote="exact 0" />
  </g>`;
}
