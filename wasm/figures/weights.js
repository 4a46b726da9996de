// Attention weights as pictures, for every figure that draws a map (the
// Attention view's maps, the Experiments view's map by layer and head): a
// map's colour scale (its largest |weight|) and exact zeros, the theme's
// weight ramps, the raster, its PNG once per matrix and theme, and which
// token indices to label along an axis.
import { matrixRgba, pngDataUri, upscaleRgba } from './raster.js';

// A map's largest |weight| (its colour scale's top) and its count of exact
// zeros, once per matrix (a hover redraws the figure, not the matrices).
const STATS = new WeakMap();
export function statsOf(A) {
  if (!STATS.has(A)) {
    let hi = 0, zeros = 0;
    for (const v of A) { if (Math.abs(v) > hi) hi = Math.abs(v); if (v === 0) zeros++; }
    STATS.set(A, { hi: hi || 1, zeros });
  }
  return STATS.get(A);
}

/** The largest |weight| of a map (its colour scale's top). */
export const weightMax = (A) => statsOf(A).hi;

// A theme's ramps for weights: without the palest stop, so the smallest
// weight is tinted and only an exact zero has the zero colour.
const RAMPS = new WeakMap();
export function weightRamps(th) {
  if (!RAMPS.has(th)) RAMPS.set(th, { pos: th.ramp.slice(1), neg: th.negRamp.slice(1) });
  return RAMPS.get(th);
}

/**
 * RGBA of a map (row 0 at the top): colour by sqrt(|v| / max) on the theme's
 * ramp without its palest stop (negative weights: the negative ramp), so
 * every weight that is not exactly 0 is tinted and exact zeros alone have
 * the theme's zero colour. hi: the scale's top (default the map's own
 * largest |weight|; several maps drawn on one scale pass theirs).
 */
export function attentionRaster(A, n, m, th, hi = weightMax(A)) {
  const r = weightRamps(th);
  return matrixRgba(A, n, m, { ramp: r.pos, negRamp: r.neg, zeroCell: th.zeroCell, t: (v) => Math.sqrt(v / hi) });
}

// A map's picture, once per matrix and theme: small matrices repeat each
// cell in k x k pixels (about 128 pixels across), so cells stay sharp.
const IMAGES = new WeakMap();
export function mapImage(A, n, m, th) {
  if (!IMAGES.has(A)) IMAGES.set(A, new Map());
  const c = IMAGES.get(A);
  if (!c.has(th.name)) {
    const k = Math.max(1, Math.floor(128 / Math.max(n, m)));
    // level 1: a map of noisy weights compresses little more at 6, in 3x the time
    c.set(th.name, pngDataUri(upscaleRgba(attentionRaster(A, n, m, th), m, n, k), m * k, n * k, 1));
  }
  return c.get(th.name);
}

/** Indices of the tokens to label along `size` pixels (every k-th, about 10 px apart at least). */
export function labelled(n, size, gap = 10) {
  const every = Math.max(1, Math.ceil(n / Math.max(1, Math.floor(size / gap))));
  return Array.from({ length: n }, (_, i) => i).filter((i) => i % every === 0);
}
