// The 2-simplex (three classes) as an equilateral triangle: a point with
// barycentric coordinates (s0, s1, s2) sits at s0·V0 + s1·V1 + s2·V2. Dots
// are Gumbel-Softmax samples; the star is softmax(x), the ring the mean of
// the samples. With `counts` (hard samples: one-hot vectors) the dots sit
// on the vertices and each vertex shows how many samples chose it.
export const SIMPLEX = { width: 340, height: 300 };
const V = [[170, 26], [26, 276], [314, 276]];

export function toXY(s0, s1, s2) {
  const t = s0 + s1 + s2 || 1;
  return [(s0 * V[0][0] + s1 * V[1][0] + s2 * V[2][0]) / t, (s0 * V[0][1] + s1 * V[1][1] + s2 * V[2][1]) / t];
}

export function Simplex({ samples, m, softmax, mean, counts, labels = ['class 0', 'class 1', 'class 2'] }) {
  const { width, height } = SIMPLEX;
  const dots = [];
  for (let d = 0; d < m; d++) {
    const [x, y] = toXY(samples[3 * d], samples[3 * d + 1], samples[3 * d + 2]);
    dots.push(<circle key={d} class="simplex-dot" cx={x.toFixed(1)} cy={y.toFixed(1)} r={2.4} data-dot={d} />);
  }
  const star = softmax && toXY(softmax[0], softmax[1], softmax[2]);
  const ring = mean && toXY(mean[0], mean[1], mean[2]);
  const mid = (a, b) => [(V[a][0] + V[b][0]) / 2, (V[a][1] + V[b][1]) / 2];
  const c = toXY(1, 1, 1);
  const anchors = [['middle', 0, -10], ['middle', 0, 20], ['middle', 0, 20]]; // labels above / below the vertices
  return (
    <svg class="chart simplex" viewBox={`-40 0 ${width + 80} ${height + 26}`} role="img" data-chart="simplex" data-dots={m}
      aria-label="three-class probability vectors on the triangle">
      <polygon class="simplex-edge" points={V.map((p) => p.join(',')).join(' ')} />
      {[[0, 1, 2], [1, 2, 0], [2, 0, 1]].map(([a, b, o]) => {
        const [mx, my] = mid(a, b);
        return <line key={o} class="grid" x1={V[o][0]} y1={V[o][1]} x2={mx} y2={my} />;
      })}
      <circle class="centroid" cx={c[0]} cy={c[1]} r={2} />
      <g data-series="samples">{dots}</g>
      {star && <path class="simplex-star" d={`M${star[0]},${star[1] - 7}l2,5h5l-4,3l2,6l-5,-4l-5,4l2,-6l-4,-3h5z`} data-marker="softmax" />}
      {ring && <circle class="simplex-ring" cx={ring[0]} cy={ring[1]} r={5} data-marker="mean" />}
      {V.map(([x, y], i) => (
        <text key={i} class="vertex-label" x={x + anchors[i][1]} y={y + anchors[i][2]} text-anchor={anchors[i][0]}>
          {labels[i]}{counts && <tspan class="vertex-count" data-count={counts[i]}>{`  ${counts[i]}`}</tspan>}
        </text>
      ))}
    </svg>
  );
}
