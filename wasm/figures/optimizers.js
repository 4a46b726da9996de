// The Optimizers figure: the test function as a banded heat map (the bands
// read as contour lines) with axes and a colour legend, its minima as
// crosses, the start (a ring) and each optimizer's path to its current
// point; beside it f − f* against the step on a log axis (games: f on a
// linear axis), clipped to a sensible range so a diverged run does not
// squash the others (it ends in a × and its legend line says where); under
// that one line per optimizer with where it stands, or why it stopped.
// Interactive (playground): onStart([x, y]) from a press or drag on the map,
// or the arrow keys on the start ring (Shift: bigger steps; Home: the
// function's own start, onStart(null)).
import { html } from './h.js';
import { Svg, Text, AxisX, AxisY, Frame, box, linear, logScale, powerTicks, Power } from './axes.js';
import { RampLegend } from './legend.js';
import { matrixRgba, pngDataUri } from './raster.js';
import { theme } from './palette.js';
import { fmt } from './format.js';
import { Formula } from './math.js';
import { formulaParts } from './formula.js';
import { lossValue } from '../analysis/trajectories.js';

export const BANDS = 18;
const HEAD = 30, LOSS_H = 230, ROW = 16, GAP = 16, CHAR = 6.2;

// A run's note (why it stopped) as lines that fit the width.
function noteLines(r, w) {
  if (!r.error) return r.divergedAt !== null || r.offAxisAt !== null ? [''] : [];
  const words = `stopped at step ${r.step}: ${r.error}`.split(' '), out = [];
  const max = Math.max(20, Math.floor((w - 24) / CHAR));
  for (const wd of words) {
    if (out.length && (out[out.length - 1] + ' ' + wd).length <= max) out[out.length - 1] += ' ' + wd;
    else out.push(wd);
  }
  return out;
}

/** Where the parts go at a width: map panel, loss plot, run lines. */
export function optimizersLayout(data, width = 760) {
  const two = width >= 640;
  const mapW = two ? Math.min(480, Math.round(width * 0.54)) : Math.min(width, 480);
  const plot = box(0, HEAD, mapW, mapW, { left: 46, right: 70, top: 6, bottom: 34 });
  // a square plot: the narrower side wins
  const side = Math.min(plot.w, plot.h);
  plot.w = plot.h = side;
  plot.right = plot.x + side;
  plot.bottom = plot.y + side;
  const mapH = plot.bottom + 34;
  const lx = two ? mapW + GAP : 0, ly = two ? HEAD : mapH + 8, lw = two ? width - mapW - GAP : width;
  const loss = box(lx, ly + 16, lw, LOSS_H - 16, { left: 50, right: 18, top: 10, bottom: 34 });
  const runsY = ly + LOSS_H + 16;
  const runs = { x: lx + 8, y: runsY, w: Math.min(lw - 8, 420) };
  const lines = 1 + data.runs.reduce((s, r) => s + 1 + noteLines(r, runs.w).length, 0);
  const height = Math.max(two ? mapH : 0, runsY + lines * ROW) + 4;
  return { two, plot, loss, lossTitle: { x: lx, y: ly + 10 }, runs, height };
}

/** The natural height of the figure at a width. */
export function optimizersHeight(data, width = 760) {
  return optimizersLayout(data, width).height;
}

/** What the heat map shows of f: log(1 + f − f*), so that valleys show (games: f itself); monotone in f. */
export function heatShown(heat) {
  return heat.log1p ? (f) => Math.log1p(Math.max(0, f - heat.fmin)) : (f) => f;
}

// The banded heat map as a PNG data URI, once per heat map and ramp: band b of
// BANDS is drawn in the ramp's colour at (b + 0.5) / BANDS, as the legend.
const IMAGES = new WeakMap();

/** The raster of a heat map: { rgba, width, height }, row 0 at the top (largest y). */
export function heatRaster(heat, ramp) {
  const { nx, ny, values } = heat;
  const tf = heatShown(heat), lo = tf(heat.lo), hi = tf(heat.hi);
  const t = new Float64Array(nx * ny);
  for (let j = 0; j < ny; j++)
    for (let i = 0; i < nx; i++) {
      const u = (tf(values[j * nx + i]) - lo) / (hi - lo || 1);
      t[(ny - 1 - j) * nx + i] = (Math.min(BANDS - 1, Math.max(0, Math.floor(u * BANDS))) + 0.5) / BANDS;
    }
  return { rgba: matrixRgba(t, ny, nx, { ramp, t: (v) => v }), width: nx, height: ny };
}

function heatImage(heat, ramp) {
  if (!IMAGES.has(heat)) IMAGES.set(heat, new Map());
  const m = IMAGES.get(heat), key = ramp.join();
  if (!m.has(key)) {
    const r = heatRaster(heat, ramp);
    m.set(key, pngDataUri(r.rgba, r.width, r.height));
  }
  return m.get(key);
}

// A line through many points, at most two per pixel column (the lowest and
// highest in it, in order), so a long run draws as fast as a short one.
function thinned(n, x, y, px) {
  if (n <= 2 * px) return Array.from({ length: n }, (_, i) => i);
  const out = [];
  let col = -1, lo = -1, hi = -1;
  const flush = () => { if (lo >= 0) out.push(...(lo < hi ? [lo, hi] : lo > hi ? [hi, lo] : [lo])); };
  for (let i = 0; i < n; i++) {
    const c = Math.floor(x(i));
    if (c !== col) { flush(); col = c; lo = hi = i; continue; }
    if (y(i) < y(lo)) lo = i;
    if (y(i) > y(hi)) hi = i;
  }
  flush();
  return out;
}

function polyline(idx, px, py) {
  let d = '', pen = false;
  for (const i of idx) {
    const a = px(i), b = py(i);
    if (!Number.isFinite(a) || !Number.isFinite(b)) { pen = false; continue; }
    d += `${pen ? 'L' : 'M'}${a.toFixed(1)},${b.toFixed(1)}`;
    pen = true;
  }
  return d;
}

// The part of segment a-b inside the box [x0, x1] x [y0, y1] (Liang-Barsky), or null.
function clipSegment(ax, ay, bx, by, x0, x1, y0, y1) {
  let t0 = 0, t1 = 1;
  const dx = bx - ax, dy = by - ay;
  for (const [p, q] of [[-dx, ax - x0], [dx, x1 - ax], [-dy, ay - y0], [dy, y1 - ay]]) {
    if (p === 0) { if (q < 0) return null; continue; }
    const r = q / p;
    if (p < 0) { if (r > t1) return null; if (r > t0) t0 = r; } else { if (r < t0) return null; if (r < t1) t1 = r; }
  }
  return [ax + t0 * dx, ay + t0 * dy, ax + t1 * dx, ay + t1 * dy];
}

// A path through pixel points, cut at the box (plus a margin): a run that
// leaves the view (a diverged one goes to |w| ~ 1e12) is drawn up to the
// edge. A point within `tol` pixels of the last one drawn is skipped (a run
// that has settled adds nothing to draw), the last point never.
function clippedPath(xs, ys, bx, { margin = 8, tol = 0.6 } = {}) {
  const x0 = bx.x - margin, x1 = bx.right + margin, y0 = bx.y - margin, y1 = bx.bottom + margin;
  let d = '', px = NaN, py = NaN, k = 0;
  const at = (x, y) => Math.abs(x - px) < 0.05 && Math.abs(y - py) < 0.05;
  for (let i = 1; i < xs.length; i++) {
    if (![xs[k], ys[k], xs[i], ys[i]].every(Number.isFinite)) { k = i; continue; }
    if (i < xs.length - 1 && Math.abs(xs[i] - xs[k]) < tol && Math.abs(ys[i] - ys[k]) < tol) continue;
    const c = clipSegment(xs[k], ys[k], xs[i], ys[i], x0, x1, y0, y1);
    k = i;
    if (!c) continue;
    if (!at(c[0], c[1])) d += `M${c[0].toFixed(1)},${c[1].toFixed(1)}`;
    d += `L${c[2].toFixed(1)},${c[3].toFixed(1)}`;
    px = c[2]; py = c[3];
  }
  return d;
}

const cross = (x, y, r) => `M${x - r},${y - r}L${x + r},${y + r}M${x + r},${y - r}L${x - r},${y + r}`;
const pt = (p) => `(${fmt(p[0], 3)}, ${fmt(p[1], 3)})`;

function MapPanel({ data, colors, th, L, onStart }) {
  const { fn, heat } = data;
  const bx = L.plot;
  const [x0, x1, y0, y1] = fn.view;
  const sx = linear([x0, x1], [bx.x, bx.right], 0), sy = linear([y0, y1], [bx.bottom, bx.y], 0);
  const toXY = (e) => {
    const r = e.currentTarget.getBoundingClientRect();
    return [x0 + ((e.clientX - r.left) / r.width) * (x1 - x0), y1 - ((e.clientY - r.top) / r.height) * (y1 - y0)];
  };
  const start = data.start;
  const keys = (e) => {
    const k = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] }[e.key];
    if (e.key === 'Home') { e.preventDefault(); onStart(null); return; }
    if (!k) return;
    e.preventDefault();
    const step = (e.shiftKey ? 0.1 : 0.02);
    onStart([start[0] + k[0] * step * (x1 - x0), start[1] + k[1] * step * (y1 - y0)]);
  };
  const heatLabel = heat.label;
  return html`<g data-panel="map">
    <${AxisY} scale=${sy} bx=${bx} th=${th} ticks=${sy.ticks(5)} label="y" />
    <image href=${heatImage(heat, th.terrain)} x=${bx.x} y=${bx.y} width=${bx.w} height=${bx.h} preserveAspectRatio="none"
      image-rendering="optimizeSpeed" style="image-rendering: pixelated" data-heat=${fn.name} />
    <${AxisX} scale=${sx} bx=${bx} th=${th} ticks=${sx.ticks(5)} label="x" grid=${false} />
    <${Frame} bx=${bx} th=${th} />
    <${RampLegend} x=${bx.right + 12} y=${bx.y + 18} h=${Math.min(200, bx.h * 0.7)} ramp=${th.terrain} lo=${heatShown(heat)(heat.lo)} hi=${heatShown(heat)(heat.hi)}
      steps=${BANDS} th=${th} label=${heatLabel} format=${(v) => fmt(heat.log1p ? Math.expm1(v) : v, 2)} />
    <svg x=${bx.x} y=${bx.y} width=${bx.w} height=${bx.h} viewBox=${`${bx.x} ${bx.y} ${bx.w} ${bx.h}`} overflow="hidden">
      ${fn.minima.map((m, i) => html`<path key=${`m${i}`} d=${cross(sx(m[0]), sy(m[1]), 5)} stroke=${th.ink} stroke-width="1.6"
        data-minimum=${`${m[0]},${m[1]}`}><title>${`minimum ${pt(m)}`}</title></path>`)}
      ${data.runs.map((r) => {
        const c = colors?.get(r.name) ?? th.accent;
        const d = clippedPath(r.path.map((p) => sx(p[0])), r.path.map((p) => sy(p[1])), bx);
        const [ex, ey] = r.path[r.path.length - 1];
        const shown = sx(ex) >= bx.x && sx(ex) <= bx.right && sy(ey) >= bx.y && sy(ey) <= bx.bottom;
        return html`<g key=${r.name} data-path=${r.name}>
          ${d && html`<path d=${d} fill="none" stroke=${th.paper} stroke-width="3.6" stroke-opacity="0.7" stroke-linejoin="round" />
            <path d=${d} fill="none" stroke=${c} stroke-width="1.8" stroke-linejoin="round" />`}
          ${shown && html`<circle cx=${sx(ex)} cy=${sy(ey)} r="4" fill=${c} stroke=${th.paper} stroke-width="1"
            data-run-end=${r.name} data-x=${String(ex)} data-y=${String(ey)}><title>${`${r.name}: ${pt([ex, ey])} at step ${r.step}`}</title></circle>`}
        </g>`;
      })}
      ${onStart && html`<rect x=${bx.x} y=${bx.y} width=${bx.w} height=${bx.h} fill="transparent" style="cursor: crosshair; touch-action: none"
        data-map-input
        onPointerDown=${(e) => { e.currentTarget.setPointerCapture?.(e.pointerId); onStart(toXY(e)); }}
        onPointerMove=${(e) => { if (e.buttons & 1) onStart(toXY(e)); }} />`}
      <circle cx=${sx(start[0])} cy=${sy(start[1])} r="5.5" fill=${th.paper} stroke=${th.ink} stroke-width="1.8"
        data-start=${`${start[0]},${start[1]}`} tabindex=${onStart ? 0 : undefined} role=${onStart ? 'button' : undefined}
        aria-label=${`start ${pt(start)}${onStart ? ': arrow keys move it, Home resets it' : ''}`} onKeyDown=${onStart ? keys : undefined}
        style=${onStart ? 'cursor: move' : undefined}><title>${`start ${pt(start)}`}</title></circle>
    </svg>
  </g>`;
}

function LossPanel({ data, colors, th, L }) {
  const { fn, loss, steps } = data;
  const bx = L.loss;
  const sx = linear([0, steps], [bx.x, bx.right], 0);
  const sy = loss.log ? logScale(loss.domain, [bx.bottom, bx.y]) : linear(loss.domain, [bx.bottom, bx.y]);
  const [lo, hi] = sy.domain();
  const cy = (v) => sy(Math.min(hi, Math.max(lo, v)));
  return html`<g data-panel="loss" data-loss-domain=${`${loss.domain[0]},${loss.domain[1]}`}>
    <${Text} x=${L.lossTitle.x} y=${L.lossTitle.y} th=${th} weight="600">${loss.label}<tspan dx="4" fill=${th.muted} font-weight="400">${`against the step${loss.log ? ' (log scale)' : ''}`}</tspan></${Text}>
    <${AxisY} scale=${sy} bx=${bx} th=${th} ticks=${loss.log ? powerTicks(sy) : sy.ticks(5)} zero=${!loss.log} />
    <${AxisX} scale=${sx} bx=${bx} th=${th} ticks=${sx.ticks(5)} label="step" />
    <${Frame} bx=${bx} th=${th} />
    <svg x=${bx.x} y=${bx.y} width=${bx.w} height=${bx.h} viewBox=${`${bx.x} ${bx.y} ${bx.w} ${bx.h}`} overflow="hidden">
      ${data.runs.map((r) => {
        const c = colors?.get(r.name) ?? th.accent;
        const v = (i) => lossValue(fn, r.path[i][2]);
        const idx = thinned(r.path.length, (i) => sx(i), (i) => cy(v(i)), bx.w);
        const last = r.path.length - 1;
        const d = polyline(idx, sx, (i) => cy(v(i)));
        return html`<g key=${r.name} data-loss=${r.name}>
          ${d && html`<path d=${d} fill="none" stroke=${c} stroke-width="1.6" stroke-linejoin="round" />`}
          ${r.divergedAt !== null && html`<path d=${cross(sx(last), cy(v(last)), 5)} stroke=${c} stroke-width="2.2"
            data-diverged=${r.name} data-value=${String(r.divergedAt)}><title>${`${r.name} diverged at step ${r.divergedAt}`}</title></path>`}
        </g>`;
      })}
    </svg>
  </g>`;
}

function RunLines({ data, colors, th, L }) {
  const { fn, loss } = data;
  const { x, w } = L.runs;
  const col = { step: x + Math.min(150, w * 0.42), f: x + Math.min(225, w * 0.64), d: x + Math.min(300, w * 0.86) };
  const top = loss.log ? loss.domain[1] : Math.max(Math.abs(loss.domain[0]), Math.abs(loss.domain[1]));
  let y = L.runs.y;
  return html`<g class="runs" font-size="11.5" data-runs>
    <g fill=${th.muted} font-size="10.5">
      <text x=${x + 24} y=${y}>optimizer</text>
      <text x=${col.step} y=${y} text-anchor="end">step</text>
      <text x=${col.f} y=${y} text-anchor="end">${fn.game ? 'f' : 'f − f*'}</text>
      <text x=${col.d} y=${y} text-anchor="end">${fn.game ? 'to equil.' : 'to min'}</text>
    </g>
    ${data.runs.map((r) => {
      const c = colors?.get(r.name) ?? th.accent;
      const lines = noteLines(r, w);
      const y0 = (y += ROW);
      y += lines.length * ROW;
      const gap = lossValue(fn, r.f);
      let note = null;
      if (r.error) {
        note = html`<text x=${x + 24} y=${y0 + ROW} fill=${th.warn} data-error=${r.name}>
          ${lines.map((t, i) => html`<tspan key=${i} x=${x + 24} dy=${i ? ROW : 0}>${t}</tspan>`)}</text>`;
      } else if (r.divergedAt !== null) {
        note = html`<text x=${x + 24} y=${y0 + ROW} fill=${th.warn} data-note="diverged" data-value=${String(r.divergedAt)}>diverged at step ${r.divergedAt} (|w| past 10¹² or not finite)</text>`;
      } else if (r.offAxisAt !== null) {
        note = html`<text x=${x + 24} y=${y0 + ROW} fill=${th.warn} data-note="off-axis" data-value=${String(r.offAxisAt)}>${'above '}<${Power} base=${10} exp=${Math.round(Math.log10(top))} />${` from step ${r.offAxisAt}`}</text>`;
      }
      return html`<g key=${r.name} data-run=${r.name} data-run-step=${r.step} data-x=${String(r.x)} data-y=${String(r.y)} data-f=${String(r.f)}>
        <line x1=${x} x2=${x + 16} y1=${y0 - 4} y2=${y0 - 4} stroke=${c} stroke-width="3" />
        <text x=${x + 24} y=${y0} fill=${th.ink} font-weight="600">${r.name}</text>
        <text x=${col.step} y=${y0} fill=${th.ink} text-anchor="end" data-metric="step" data-value=${String(r.step)}>${r.step}</text>
        ${!r.error && html`<text x=${col.f} y=${y0} fill=${th.ink} text-anchor="end" data-metric="loss" data-value=${String(gap)}>${fmt(gap, 3)}</text>
          <text x=${col.d} y=${y0} fill=${th.ink} text-anchor="end" data-metric="distance" data-value=${String(r.distance)}>${fmt(r.distance, 3)}</text>`}
        ${note}
      </g>`;
    })}
  </g>`;
}

export function OptimizersFigure({ data, colors, theme: t, width = 760, height, onStart }) {
  const th = theme(t);
  const L = optimizersLayout(data, width);
  const h = height ?? L.height;
  const { fn } = data;
  // interactive, the figure is a group (its start ring is a control), not one image
  return html`<${Svg} width=${width} height=${h} th=${th} data-figure="optimizers" role=${onStart ? 'group' : 'img'}
      title=${`optimizers on ${fn.name}: ${data.runs.map((r) => r.name).join(', ')}, ${data.steps} steps`}>
    <${Text} x=${8} y=${18} th=${th} weight="600">${fn.name}<tspan dx="10" fill=${th.muted} font-weight="400" font-size="11.5" data-formula><${Formula} parts=${formulaParts(fn.formula)} size=${11.5} /></tspan></${Text}>
    <${MapPanel} data=${data} colors=${colors} th=${th} L=${L} onStart=${onStart} />
    <${LossPanel} data=${data} colors=${colors} th=${th} L=${L} />
    <${RunLines} data=${data} colors=${colors} th=${th} L=${L} />
  </${Svg}>`;
}
