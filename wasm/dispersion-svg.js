// A standalone SVG figure of a dispersion sweep (the result of
// dispersionSweep): three panels side by side with n on a log2 axis —
// probability (max solid, key dashed), entropy (with ln n, the uniform
// maximum, in grey) and support size (log axis, with n in grey) — one colour
// per normalizer and a legend. Hand-written SVG, no dependencies; every curve
// is a <path data-series data-metric> so tools can find it.

const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#b07aa1', '#76b7b2', '#edc948', '#9c755f', '#ff9da7', '#bab0ac'];
const W = 300, H = 230, M = { left: 50, right: 12, top: 26, bottom: 38 };
const GAP = 16;

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const r2 = (v) => Math.round(v * 100) / 100;

function tickText(v) {
  if (v === 0) return '0';
  const a = Math.abs(v);
  return a >= 1e-3 && a < 1e5 ? String(Number(v.toPrecision(3))) : v.toExponential(1);
}

/** A linear or log2 scale [d0, d1] -> [r0, r1]. */
function scale(d0, d1, r0, r1, log) {
  const f = log ? Math.log2 : (v) => v;
  const a = f(d0), b = f(d1);
  return (v) => r0 + ((f(v) - a) / (b - a || 1)) * (r1 - r0);
}

// "M x y L x y ..." through the finite points; a non-finite value breaks the line.
function pathData(xs, ys, sx, sy) {
  let d = '', pen = false;
  for (let i = 0; i < xs.length; i++) {
    const v = ys[i];
    if (!Number.isFinite(v)) { pen = false; continue; }
    d += `${pen ? 'L' : 'M'}${r2(sx(xs[i]))} ${r2(sy(v))}`;
    pen = true;
  }
  return d;
}

function panel(result, spec, x0, color) {
  const ns = result.n, nMax = ns[ns.length - 1], nMin = ns[0];
  const px0 = x0 + M.left, px1 = x0 + W - M.right, py0 = H - M.bottom, py1 = M.top;
  const sx = scale(nMin, nMax, px0, px1, true);
  const [lo, hi] = spec.domain;
  const sy = scale(lo, hi, py0, py1, spec.log);
  const out = [];
  out.push(`<g class="panel" data-panel="${spec.id}">`);
  out.push(`<text x="${r2(px0)}" y="16" class="title">${esc(spec.title)}</text>`);
  for (const t of spec.ticks) {
    out.push(`<line class="grid" x1="${r2(px0)}" x2="${r2(px1)}" y1="${r2(sy(t))}" y2="${r2(sy(t))}"/>`);
    out.push(`<text class="tick" x="${r2(px0 - 5)}" y="${r2(sy(t) + 3.5)}" text-anchor="end">${esc(spec.tickText(t))}</text>`);
  }
  const e0 = Math.ceil(Math.log2(nMin)), e1 = Math.floor(Math.log2(nMax));
  const step = Math.max(1, Math.ceil((e1 - e0 + 1) / 6));
  for (let e = e0; e <= e1; e += step) {
    const x = r2(sx(2 ** e));
    out.push(`<line class="grid" x1="${x}" x2="${x}" y1="${r2(py1)}" y2="${r2(py0)}"/>`);
    out.push(`<text class="tick" x="${x}" y="${r2(py0 + 14)}" text-anchor="middle">2<tspan dy="-4" font-size="8">${e}</tspan></text>`);
  }
  out.push(`<text class="label" x="${r2((px0 + px1) / 2)}" y="${H - 6}" text-anchor="middle">n (log scale)</text>`);
  if (spec.reference) {
    const d = pathData(ns, ns.map(spec.reference.f), sx, sy);
    out.push(`<path class="reference" d="${d}"/><text class="tick" x="${r2(px1)}" y="${r2(py1 - 4)}" text-anchor="end">grey: ${esc(spec.reference.label)}</text>`);
  }
  result.series.forEach((s, i) => {
    for (const line of spec.lines) {
      const d = pathData(ns, s[line.metric].map((v) => (spec.log && !(v > 0) ? NaN : v)), sx, sy);
      out.push(`<path class="curve${line.dashed ? ' dashed' : ''}" stroke="${color(i)}" data-series="${esc(s.name)}" data-metric="${line.metric}" d="${d}"/>`);
    }
  });
  out.push(`<rect class="frame" x="${r2(px0)}" y="${r2(py1)}" width="${r2(px1 - px0)}" height="${r2(py0 - py1)}"/>`);
  out.push('</g>');
  return out.join('\n');
}

function extent(result, metrics) {
  let lo = Infinity, hi = -Infinity;
  for (const s of result.series) for (const m of metrics) for (const v of s[m]) if (Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  return [lo, hi];
}

function linearTicks(lo, hi, count = 5) {
  const raw = (hi - lo) / count, p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * p).find((s) => s >= raw);
  const out = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) out.push(Number(t.toPrecision(12)));
  return out;
}

/** The figure for a dispersionSweep result, as an SVG document string. */
export function dispersionSvg(result, { title } = {}) {
  const ns = result.n, nMax = ns[ns.length - 1];
  const color = (i) => PALETTE[i % PALETTE.length];
  const [plo, phi] = extent(result, ['maxProb', 'keyProb']);
  const pDomain = [Math.min(0, plo), Math.max(1, phi)];
  const [, hhi] = extent(result, ['entropy']);
  const hDomain = [0, Math.max(Math.log(nMax), Number.isFinite(hhi) ? hhi : 0) * 1.02];
  const panels = [
    { id: 'probability', title: 'probability: max (solid), key (dashed)', domain: pDomain, log: false,
      ticks: linearTicks(...pDomain), tickText, lines: [{ metric: 'maxProb' }, { metric: 'keyProb', dashed: true }] },
    { id: 'entropy', title: 'entropy (nats)', domain: hDomain, log: false, ticks: linearTicks(...hDomain), tickText,
      lines: [{ metric: 'entropy' }], reference: { f: (n) => Math.log(n), label: 'ln n' } },
    { id: 'support', title: 'support size', domain: [1, nMax], log: true,
      ticks: Array.from({ length: Math.floor(Math.log2(nMax) / 4) + 1 }, (_, k) => 2 ** (4 * k)),
      tickText: (t) => (t < 1024 ? String(t) : `2^${Math.log2(t)}`), lines: [{ metric: 'support' }], reference: { f: (n) => n, label: 'n' } },
  ];
  const width = panels.length * W + (panels.length - 1) * GAP;
  const legendRows = Math.ceil(result.series.length / 3);
  const height = H + 20 + legendRows * 18 + (title ? 22 : 0);
  const top = title ? 22 : 0;
  const inp = result.inputs ?? {};
  const out = [];
  out.push('<?xml version="1.0" encoding="UTF-8"?>');
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif">`);
  out.push('<style>.title{font-size:12px;font-weight:bold;fill:#1d2430}.tick{font-size:10px;fill:#7b8595}.label{font-size:11px;fill:#4a5566}'
    + '.grid{stroke:#eef0f3}.frame{fill:none;stroke:#c5cbd4}.curve{fill:none;stroke-width:1.8}.dashed{stroke-dasharray:5 3;stroke-width:1.2}'
    + '.reference{fill:none;stroke:#b8bfca;stroke-dasharray:2 3}.legend{font-size:11px;fill:#1d2430}</style>');
  out.push('<rect width="100%" height="100%" fill="#fff"/>');
  if (title) out.push(`<text x="8" y="16" class="title">${esc(title)}</text>`);
  if (inp.distractor) {
    out.push(`<desc>dispersion sweep: margin ${inp.margin}, distractors ${esc(inp.distractor.kind)} (scale ${inp.distractor.scale}), seed ${inp.seed}, n = ${ns[0]}..${nMax}</desc>`);
  }
  out.push(`<g transform="translate(0 ${top})">`);
  panels.forEach((p, i) => out.push(panel(result, p, i * (W + GAP), color)));
  out.push('</g>');
  result.series.forEach((s, i) => {
    const x = 12 + (i % 3) * (width / 3), y = top + H + 16 + Math.floor(i / 3) * 18;
    const ps = Object.entries(s.params ?? {}).map(([k, v]) => `${k}=${v}`).join(', ');
    out.push(`<g class="legend-item" data-series="${esc(s.name)}"><line x1="${r2(x)}" x2="${r2(x + 22)}" y1="${y}" y2="${y}" stroke="${color(i)}" stroke-width="2.5"/>`
      + `<text class="legend" x="${r2(x + 28)}" y="${y + 4}">${esc(s.name)}${ps ? esc(` (${ps})`) : ''}${s.output === 'weights' ? ' [weights]' : ''}</text></g>`);
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}
