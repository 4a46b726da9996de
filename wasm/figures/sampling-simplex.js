// The 2-simplex (three classes) as an equilateral triangle: a point with
// barycentric coordinates (s0, s1, s2) sits at s0·V0 + s1·V1 + s2·V2. Its
// axes are the three coordinates: grid lines where s_i = 0.2, 0.4, 0.6, 0.8,
// labelled along the edge where s_i grows. Dots are samples (data-value
// "s0,s1,s2"); the star is a reference distribution, the ring the samples'
// mean. With `counts` (one-hot samples) each vertex shows how many samples
// chose it.
import { html } from './h.js';
import { fmt } from './format.js';

const GRID = [0.2, 0.4, 0.6, 0.8];

/** The vertices of the triangle inscribed in a box (x, y, w, h), room left for labels. */
export function simplexVertices({ x, y, w, h }) {
  const side = Math.min(w - 96, (h - 64) / (Math.sqrt(3) / 2));
  const th = (side * Math.sqrt(3)) / 2;
  const cx = x + w / 2, top = y + 20 + (h - 64 - th) / 2;
  return [[cx, top], [cx - side / 2, top + th], [cx + side / 2, top + th]];
}

/** Screen point of barycentric coordinates s (normalized by their sum). */
export function toXY(V, s) {
  const t = s[0] + s[1] + s[2] || 1;
  return [0, 1].map((c) => (s[0] * V[0][c] + s[1] * V[1][c] + s[2] * V[2][c]) / t);
}

export function Simplex({ bx, th, samples = [], star, mean, counts, labels, dot, id = 'simplex' }) {
  const V = simplexVertices(bx);
  // s_i = g runs parallel to the edge opposite vertex i, from edge (i, i+1) to edge (i, i+2)
  const line = (i, g) => {
    const a = [0, 0, 0], b = [0, 0, 0];
    a[i] = g; a[(i + 1) % 3] = 1 - g;
    b[i] = g; b[(i + 2) % 3] = 1 - g;
    return [toXY(V, a), toXY(V, b)];
  };
  // s_i's labels run along the edge from vertex i+1 to vertex i, just outside the triangle
  const outside = (i, g, off) => {
    const p = [0, 0, 0];
    p[i] = g; p[(i + 1) % 3] = 1 - g;
    const [px, py] = toXY(V, p);
    const [cx, cy] = toXY(V, [1, 1, 1]);
    const dx = px - cx, dy = py - cy, d = Math.hypot(dx, dy) || 1;
    return [px + (dx / d) * off, py + (dy / d) * off];
  };
  const tick = (i, g) => outside(i, g, 11);
  // the edge's direction (from vertex i+1 to vertex i) as an angle that keeps its title upright
  const angle = (i) => {
    const a = V[(i + 1) % 3], b = V[i];
    let deg = (Math.atan2(b[1] - a[1], b[0] - a[0]) * 180) / Math.PI;
    if (deg > 90) deg -= 180;
    if (deg < -90) deg += 180;
    return deg;
  };
  const anchor = [['middle', 0, -8], ['middle', 0, 30], ['middle', 0, 30]];
  return html`<g class="simplex" data-chart=${id} data-dots=${samples.length}>
    <polygon points=${V.map((p) => p.join(',')).join(' ')} fill="none" stroke=${th.frame} />
    <g class="axis" font-size="9" fill=${th.muted}>
      ${[0, 1, 2].map((i) => GRID.map((g) => {
        const [[x1, y1], [x2, y2]] = line(i, g);
        const [tx, ty] = tick(i, g);
        return html`<g key=${`${i}-${g}`}>
          <line x1=${x1} y1=${y1} x2=${x2} y2=${y2} stroke=${th.grid} />
          <text x=${tx} y=${ty} dy="0.32em" text-anchor="middle" data-tick=${`p${i}=${g}`}>${fmt(g, 2)}</text>
        </g>`;
      }))}
    </g>
    <g class="axis-titles" font-size="10" fill=${th.muted}>
      ${[0, 1, 2].map((i) => {
        const [x, y] = outside(i, 0.5, 27);
        return html`<text key=${i} transform=${`translate(${x} ${y}) rotate(${angle(i)})`} text-anchor="middle" dy="0.32em">p(${labels?.[i] ?? `class ${i}`})</text>`;
      })}
    </g>
    <g data-series="samples" fill=${dot ?? th.accent} fill-opacity="0.45">
      ${samples.map((s, d) => {
        const [x, y] = toXY(V, s);
        return html`<circle key=${d} cx=${x.toFixed(2)} cy=${y.toFixed(2)} r="2.4" data-dot=${d} data-value=${s.join(',')} />`;
      })}
    </g>
    ${star && (() => {
      const [x, y] = toXY(V, star);
      return html`<path d=${`M${x},${y - 7}l2,5h5l-4,3l2,6l-5,-4l-5,4l2,-6l-4,-3h5z`} fill=${th.warn} stroke=${th.paper} stroke-width="0.8"
        data-marker="reference" data-value=${star.join(',')} />`;
    })()}
    ${mean && (() => {
      const [x, y] = toXY(V, mean);
      return html`<circle cx=${x} cy=${y} r="5.5" fill="none" stroke=${th.ink} stroke-width="1.6" data-marker="mean" data-value=${mean.join(',')} />`;
    })()}
    ${V.map(([x, y], i) => html`<text key=${i} x=${x + anchor[i][1]} y=${y + anchor[i][2]} text-anchor=${anchor[i][0]} font-size="11" fill=${th.ink}>
      ${labels?.[i] ?? `class ${i}`}${counts && html`<tspan fill=${th.muted} data-count=${counts[i]} data-value=${counts[i]}>${`\u00a0· ${counts[i]}`}</tspan>`}
    </text>`)}
  </g>`;
}
