// A quantity against τ on a log axis (log y too), one line per estimator,
// with the current τ marked. Each line carries data-series and data-values.
import { scaleLog } from 'd3-scale';

export const TAU_CHART = { width: 300, height: 200, left: 48, right: 10, top: 10, bottom: 32 };
const sup = (e) => <>10<tspan dy="-4" font-size="8">{e}</tspan></>;

export function TauChart({ id, title, taus, lines, tau }) {
  const { width, height, left, right, top, bottom } = TAU_CHART;
  let lo = Infinity, hi = 0;
  for (const l of lines) for (const v of l.values) if (v > 0) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  if (!(hi > 0)) { lo = 1e-3; hi = 1; }
  const e0 = Math.floor(Math.log10(lo)), e1 = Math.max(e0 + 1, Math.ceil(Math.log10(hi)));
  const x = scaleLog().domain([taus[0], taus[taus.length - 1]]).range([left, width - right]);
  const y = scaleLog().domain([10 ** e0, 10 ** e1]).range([height - bottom, top]).clamp(true);
  const every = Math.max(1, Math.ceil((e1 - e0 + 1) / 5));
  const yTicks = [];
  for (let e = e0; e <= e1; e += every) yTicks.push(e);
  const path = (vals) => {
    let d = '', pen = false;
    vals.forEach((v, j) => {
      if (!(v > 0)) { pen = false; return; }
      d += `${pen ? 'L' : 'M'}${x(taus[j]).toFixed(1)},${y(v).toFixed(1)}`;
      pen = true;
    });
    return d;
  };
  return (
    <figure class="line-chart tau-chart">
      <figcaption>{title}</figcaption>
      <svg class="chart" viewBox={`0 0 ${width} ${height}`} role="img" data-chart={id} aria-label={`${title} against τ`}>
        {yTicks.map((e) => (
          <g key={e}>
            <line class="grid" x1={left} x2={width - right} y1={y(10 ** e)} y2={y(10 ** e)} />
            <text class="tick" x={left - 6} y={y(10 ** e)} dy="0.32em" text-anchor="end">{sup(e)}</text>
          </g>
        ))}
        {[0.1, 1, 10].filter((t) => t >= taus[0] && t <= taus[taus.length - 1]).map((t) => (
          <g key={t}>
            <line class="grid" x1={x(t)} x2={x(t)} y1={top} y2={height - bottom} />
            <text class="tick" x={x(t)} y={height - bottom + 14} text-anchor="middle">{t}</text>
          </g>
        ))}
        <rect class="frame" x={left} y={top} width={width - left - right} height={height - top - bottom} />
        {tau >= taus[0] && tau <= taus[taus.length - 1] && (
          <line class="tau-rule" x1={x(tau)} x2={x(tau)} y1={top} y2={height - bottom} />
        )}
        {lines.map((l) => (
          <path key={l.name} class="curve" stroke={l.color} d={path(l.values)} data-series={l.name}
            data-values={l.values.map(String).join(',')} />
        ))}
        <text class="axis-label" x={left + (width - left - right) / 2} y={height - 3} text-anchor="middle">τ (log scale)</text>
      </svg>
    </figure>
  );
}
