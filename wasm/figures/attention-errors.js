// The Attention figure's error maps: for each random-feature kernel, E =
// A_kernel − A_softmax on the view's example as a heat map (queries down,
// keys across), all on one colour scale (blue: the kernel puts more weight on
// the key than softmax does, red: less; by sqrt(|E| / the largest |E|), so
// small errors show) with one legend, and under each map its relative error
// ‖E‖ / ‖A‖ and its output's relative error. A kernel that is not defined on
// this input (a row's estimated normalizer ≤ 0) says so in its place. Draw
// only: the model (views/attention/random-features.js) computes E.
import { html } from './h.js';
import { Text } from './axes.js';
import { matrixRgba, pngDataUri, upscaleRgba } from './raster.js';
import { rampColor } from './palette.js';
import { fmt } from './format.js';
import { wrap, titleLines, Title, LINE, SP } from './text.js';
import { Formula } from './math.js';

const PAD = 8, TOP = 54, LEGEND_H = 44, LEGEND_W = 220;

const TITLE = 'Random features against softmax attention';
const SUB = 'each kernel\'s attention minus softmax attention on this example, one colour scale: blue where a kernel weighs a key more than softmax, red where less';
// the legend's formula, its subscript typeset (math.js)
const DIFF = ['A − A', { sub: ['softmax'] }, `${SP}(all maps)`];

// The lines of a map's note (an error's reason), at the panel's width.
const noteLines = (text, pw) => wrap(text, pw - 2 * PAD, 11.5);

/** Where the parts go (the grid of the maps above: cols, pw, map): { title, legendY, mapsY, rowY (each grid row's top, from mapsY), height }. */
export function rfLayout(rf, width, { cols, pw, map }) {
  const title = titleLines(TITLE, SUB, width, PAD);
  // a grid row is as tall as its tallest panel: a map, or the reason there is none
  const rowY = [0];
  for (let at = 0; at < rf.maps.length; at += cols) {
    const hs = rf.maps.slice(at, at + cols).map((e) => (e.error ? TOP + LINE * noteLines(e.error, pw).length + 10 : TOP + map + 2 * LINE + 14));
    rowY.push(rowY.at(-1) + Math.max(...hs));
  }
  const mapsY = title.height + LEGEND_H;
  return { title, cols, pw, map, legendY: title.height + 8, mapsY, rowY, height: mapsY + rowY.at(-1) + 8 };
}

// A map's picture, once per matrix and theme.
const IMAGES = new WeakMap();
function errorImage(E, n, m, hi, th) {
  if (!IMAGES.has(E)) IMAGES.set(E, new Map());
  const c = IMAGES.get(E), key = `${th.name} ${hi}`;
  if (!c.has(key)) {
    const k = Math.max(1, Math.floor(128 / Math.max(n, m)));
    const px = matrixRgba(E, n, m, { ramp: th.ramp, negRamp: th.negRamp, zeroCell: th.zeroCell, t: (v) => Math.sqrt(v / hi) });
    c.set(key, pngDataUri(upscaleRgba(px, m, n, k), m * k, n * k, 1));
  }
  return c.get(key);
}

// The shared scale, left −hi (red) through 0 to +hi (blue), on the maps' sqrt scale.
function DivergingLegend({ x, y, hi, th }) {
  const steps = 24, w = LEGEND_W / (2 * steps);
  const cells = [];
  for (let i = 0; i < steps; i++) {
    const t = 1 - (i + 0.5) / steps;
    cells.push(html`<rect key=${`n${i}`} x=${x + i * w} y=${y} width=${w + 0.5} height="10" fill=${rampColor(th.negRamp, Math.sqrt(t))} />`);
    cells.push(html`<rect key=${`p${i}`} x=${x + LEGEND_W / 2 + i * w} y=${y} width=${w + 0.5} height="10" fill=${rampColor(th.ramp, Math.sqrt((i + 0.5) / steps))} />`);
  }
  return html`<g font-size="10" fill=${th.muted} data-rf-legend data-value=${String(hi)}>
    ${cells}
    <rect x=${x} y=${y} width=${LEGEND_W} height="10" fill="none" stroke=${th.frame} />
    <text x=${x} y=${y + 22}>${fmt(-hi, 2)}</text>
    <text x=${x + LEGEND_W / 2} y=${y + 22} text-anchor="middle">0</text>
    <text x=${x + LEGEND_W} y=${y + 22} text-anchor="end">${fmt(hi, 2)}</text>
    <text x=${x + LEGEND_W + 10} y=${y + 9}><${Formula} parts=${DIFF} size=${10} /></text>
  </g>`;
}

// A kernel's parameters as run, without the seed (the view's).
const paramText = (p) => Object.entries(p).filter(([k]) => k !== 'seed').map(([k, v]) => `${k} ${v}`).join(', ');

function ErrorMap({ e, rf, data, P, x0, y0, th, color }) {
  const { n, m } = data, M = P.map, mx = x0 + PAD + 38, my = y0 + TOP;
  const params = wrap(paramText(e.params), P.pw - 2 * PAD, 10.5).slice(0, 2);
  const head = html`<g>
    <rect x=${x0 + PAD} y=${y0 + 8} width="10" height="10" rx="2" fill=${color} />
    <${Text} x=${x0 + PAD + 15} y=${y0 + 17} th=${th} weight="600">${e.id}<tspan dx="5" fill=${th.muted} font-weight="400">− softmax</tspan></${Text}>
    ${params.map((l, i) => html`<${Text} key=${i} x=${x0 + PAD} y=${y0 + 31 + LINE * i} th=${th} size=${10.5} color=${th.muted}>${l}</${Text}>`)}
  </g>`;
  if (e.error) {
    return html`<g data-rf-map=${e.id} data-domain=${e.domain ? '1' : undefined}>${head}
      <${Text} x=${x0 + PAD} y=${my + 4} th=${th} color=${th.warn} size=${11.5} data-error=${`rf-${e.id}`}>
        ${noteLines(e.error, P.pw).map((t, i) => html`<tspan key=${i} x=${x0 + PAD} dy=${i ? LINE : 0}>${t}</tspan>`)}
      </${Text}></g>`;
  }
  return html`<g data-rf-map=${e.id}>${head}
    <image href=${errorImage(e.E, n, m, rf.hi, th)} x=${mx} y=${my} width=${M} height=${M} preserveAspectRatio="none"
      image-rendering="optimizeSpeed" style="image-rendering: pixelated" data-rf-image=${e.id} />
    <rect x=${mx} y=${my} width=${M} height=${M} fill="none" stroke=${th.frame} />
    <g font-size="10" fill=${th.muted} font-style="italic" aria-hidden="true">
      <text x=${mx - 4} y=${my + 10} text-anchor="end">query</text><text x=${mx - 4} y=${my + 22} text-anchor="end">↓</text>
      <text x=${mx + M} y=${my + M + 11} text-anchor="end">key →</text>
    </g>
    <${Text} x=${x0 + PAD} y=${my + M + LINE + 10} th=${th} size=${11}>
      <tspan fill=${th.muted}>‖E‖/‖A‖${SP}</tspan><tspan data-metric="rf-error" data-value=${String(e.relErr)}>${fmt(e.relErr, 3)}</tspan>
      <tspan fill=${th.muted}>${`${SP}· largest |E|${SP}`}</tspan><tspan data-metric="rf-max" data-value=${String(e.maxAbs)}>${fmt(e.maxAbs, 3)}</tspan>
    </${Text}>
    <${Text} x=${x0 + PAD} y=${my + M + 2 * LINE + 10} th=${th} size=${11}>
      <tspan fill=${th.muted}>output error vs softmax${SP}</tspan><tspan data-metric="rf-out-error" data-value=${String(e.outErr)}>${fmt(e.outErr, 3)}</tspan>
    </${Text}>
  </g>`;
}

export function RandomFeatureErrors({ rf, data, P, y0, th, colors }) {
  return html`<g data-section="rf" data-rf-scale=${String(rf.hi)}>
    <${Title} t=${P.title} title=${TITLE} y=${y0} th=${th} pad=${PAD} />
    <${DivergingLegend} x=${PAD} y=${y0 + P.legendY} hi=${rf.hi} th=${th} />
    ${rf.maps.map((e, k) => html`<${ErrorMap} key=${e.id} e=${e} rf=${rf} data=${data} P=${P} th=${th} color=${colors?.get(e.id) ?? th.accent}
      x0=${(k % P.cols) * P.pw} y0=${y0 + P.mapsY + P.rowY[Math.floor(k / P.cols)]} />`)}
  </g>`;
}
