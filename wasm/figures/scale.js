// Scales for the figures: linear, log and band, with the part of d3-scale's
// interface the figures use (call, domain, range, ticks, nice, invert, copy,
// clamp, bandwidth). The tick and nice-step arithmetic is d3-array's
// (ticks, nice); what d3-scale adds on top (interpolators for colours,
// number formats, time scales) the figures do not need, and leaving it out
// keeps the embed bundle small.
import { ticks as d3ticks, nice as d3nice } from 'd3-array';

function numeric(kind, d, r, clamped, map, unmap, extra) {
  const s = (x) => {
    let t = (map(x) - map(d[0])) / (map(d[1]) - map(d[0]) || 1);
    if (clamped) t = Math.min(1, Math.max(0, t));
    return r[0] + t * (r[1] - r[0]);
  };
  s.invert = (y) => {
    let t = (y - r[0]) / (r[1] - r[0] || 1);
    if (clamped) t = Math.min(1, Math.max(0, t));
    return unmap(map(d[0]) + t * (map(d[1]) - map(d[0])));
  };
  s.domain = (v) => (v === undefined ? d.slice() : kind({ d: v.slice(), r, clamped, ...extra }));
  s.range = (v) => (v === undefined ? r.slice() : kind({ d, r: v.slice(), clamped, ...extra }));
  s.clamp = (v) => (v === undefined ? clamped : kind({ d, r, clamped: !!v, ...extra }));
  s.copy = () => kind({ d: d.slice(), r: r.slice(), clamped, ...extra });
  return s;
}

function linearOf({ d = [0, 1], r = [0, 1], clamped = false } = {}) {
  const s = numeric(linearOf, d, r, clamped, (x) => x, (x) => x, {});
  /** Round numbers across the domain (about `count` of them). */
  s.ticks = (count = 10) => d3ticks(Math.min(d[0], d[1]), Math.max(d[0], d[1]), count);
  /** The domain extended to round numbers. */
  s.nice = (count = 10) => {
    const [a, b] = d3nice(d[0], d[1], count);
    return linearOf({ d: [a, b], r, clamped });
  };
  return s;
}

function logOf({ d = [1, 10], r = [0, 1], clamped = false, base = 10 } = {}) {
  const lb = Math.log(base);
  const s = numeric(logOf, d, r, clamped, (x) => Math.log(x) / lb, (t) => base ** t, { base });
  s.base = (b) => (b === undefined ? base : logOf({ d, r, clamped, base: b }));
  /** The whole powers of the base inside the domain. */
  s.ticks = () => {
    const out = [];
    const lo = Math.ceil(Math.log(Math.min(d[0], d[1])) / lb - 1e-9), hi = Math.floor(Math.log(Math.max(d[0], d[1])) / lb + 1e-9);
    for (let e = lo; e <= hi; e++) out.push(base ** e);
    return out;
  };
  return s;
}

function bandOf({ d = [], r = [0, 1], inner = 0 } = {}) {
  const n = d.length;
  const step = (r[1] - r[0]) / Math.max(1, n - inner);
  const bw = step * (1 - inner);
  const index = new Map(d.map((v, i) => [v, i]));
  const s = (x) => (index.has(x) ? r[0] + step * index.get(x) : undefined);
  s.domain = (v) => (v === undefined ? d.slice() : bandOf({ d: [...v], r, inner }));
  s.range = (v) => (v === undefined ? r.slice() : bandOf({ d, r: v.slice(), inner }));
  s.paddingInner = (p) => (p === undefined ? inner : bandOf({ d, r, inner: p }));
  s.bandwidth = () => bw;
  s.step = () => step;
  s.copy = () => bandOf({ d: d.slice(), r: r.slice(), inner });
  return s;
}

export const scaleLinear = () => linearOf();
export const scaleLog = () => logOf();
export const scaleBand = () => bandOf();
