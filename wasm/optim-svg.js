// A standalone SVG figure of optimizer trajectories on a 2-D test function:
// a heat map of log(1 + f - fmin) (games: of f itself) on the function's
// view, its known minima as crosses, and one polyline per optimizer from
// the start (a circle) with a legend. Hand-written SVG, no dependencies;
// each path is a <polyline data-kernel> so tools can find it.

export const PALETTE = ['#e15759', '#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#76b7b2', '#edc948', '#9c755f'];
const S = 420, M = 36, CELLS = 60;

const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
const r2 = (v) => Math.round(v * 100) / 100;

/** A grey-blue ramp for t in [0, 1] (low = light), as [r, g, b]. */
export function heatRgb(t) {
  const c = (a, b) => Math.round(a + (b - a) * t);
  return [c(247, 33), c(251, 102), c(255, 172)];
}

/** The same ramp as a CSS colour. */
export function heatColor(t) {
  return `rgb(${heatRgb(t).join(',')})`;
}

/** The value the heat map shows: compresses the range so valleys show. */
export function heatValue(fn, f) {
  return fn.game ? f : Math.log1p(Math.max(0, f - fn.fmin));
}

/** runs: [{ kernel, output: [[x, y, f], ...] }], grid: CELLS x CELLS values of f. */
export function trajectorySvg(fn, runs, grid, cells = CELLS) {
  const [x0, x1, y0, y1] = fn.view;
  const sx = (x) => M + ((x - x0) / (x1 - x0)) * S, sy = (y) => M + S - ((y - y0) / (y1 - y0)) * S;
  let lo = Infinity, hi = -Infinity;
  const hv = Array.from(grid, (f) => heatValue(fn, f));
  for (const v of hv) if (Number.isFinite(v)) lo = Math.min(lo, v), hi = Math.max(hi, v);
  const cw = S / cells, parts = [];
  for (let j = 0; j < cells; j++)
    for (let i = 0; i < cells; i++) {
      const t = (hv[j * cells + i] - lo) / (hi - lo || 1);
      parts.push(`<rect x="${r2(M + i * cw)}" y="${r2(M + S - (j + 1) * cw)}" width="${r2(cw + 0.3)}" height="${r2(cw + 0.3)}" fill="${heatColor(t)}"/>`);
    }
  for (const m of fn.minima)
    parts.push(`<path d="M${r2(sx(m[0]) - 5)} ${r2(sy(m[1]) - 5)}l10 10m0 -10l-10 10" stroke="#222" stroke-width="1.5"/>`);
  runs.forEach((r, k) => {
    const col = PALETTE[k % PALETTE.length];
    const pts = r.output.map((p) => `${r2(sx(p[0]))},${r2(sy(p[1]))}`).join(' ');
    parts.push(`<polyline data-kernel="${esc(r.kernel)}" points="${pts}" fill="none" stroke="${col}" stroke-width="1.6"/>`);
    parts.push(`<text x="${M + S + 12}" y="${M + 14 + 18 * k}" font-size="12" fill="${col}">${esc(r.kernel)}</text>`);
  });
  const s0 = runs[0]?.output[0];
  if (s0) parts.push(`<circle cx="${r2(sx(s0[0]))}" cy="${r2(sy(s0[1]))}" r="4" fill="#fff" stroke="#222"/>`);
  const W = M + S + 130, H = M + S + 30;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif">
<text x="${M}" y="20" font-size="14">${esc(fn.name)}: ${esc(fn.formula)}</text>
<rect x="${M}" y="${M}" width="${S}" height="${S}" fill="none" stroke="#888"/>
${parts.join('\n')}
<text x="${M}" y="${M + S + 18}" font-size="11">x in [${x0}, ${x1}], y in [${y0}, ${y1}]</text>
</svg>
`;
}
