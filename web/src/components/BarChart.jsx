// One normalizer's output as SVG bars. Bar height is proportional to the
// value it shows (the y scale is linear and starts at 0); every bar carries
// data-kernel, data-index and data-value (the exact float32 value) so tests and
// tools can read what is drawn.
import { scaleLinear } from 'd3-scale';
import { fmt } from '../lib/format.js';

export const CHART = { width: 340, height: 210, left: 46, right: 10, top: 12, bottom: 34 };

const AXIS_LABEL = { probs: 'probability p_i', log_probs: 'log-probability log p_i', weights: 'weight w_i' };

/** d3 linear scale from value to pixel y for a [lo, hi] domain that contains 0. */
export function yScaleFor(domain) {
  return scaleLinear().domain(domain).range([CHART.height - CHART.bottom, CHART.top]);
}

export function BarChart({ kernel, kind, values, domain, color, highlight }) {
  const { width, height, left, right, top, bottom } = CHART;
  const n = values.length;
  const plotW = width - left - right;
  const band = plotW / n;
  const gap = n <= 24 ? Math.min(2, band * 0.2) : band > 3 ? 0.5 : 0;
  const y = yScaleFor(domain);
  const y0 = y(0);
  const ticks = y.ticks(4);
  const xEvery = Math.max(1, Math.ceil(n / 8));
  const lo = y(domain[0]);
  return (
    <svg class="chart" viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img"
      aria-label={`${kernel}: ${AXIS_LABEL[kind]} for each index`} data-chart={kernel} data-kind={kind}>
      {ticks.map((t) => (
        <g key={t}>
          <line class={t === 0 ? 'axis-zero' : 'grid'} x1={left} x2={width - right} y1={y(t)} y2={y(t)} />
          <text class="tick" x={left - 6} y={y(t)} dy="0.32em" text-anchor="end">{fmt(t, 3)}</text>
        </g>
      ))}
      <g data-bars={kernel}>
        {Array.from(values, (v, i) => {
          // -Inf log-probabilities (masked entries) are drawn down to the axis end.
          const yv = Number.isFinite(v) ? y(v) : lo;
          return (
            <rect
              key={i}
              class={i === highlight ? 'bar bar-hi' : 'bar'}
              x={left + i * band + gap / 2}
              y={Math.min(yv, y0)}
              width={Math.max(0.5, band - gap)}
              height={Math.abs(yv - y0)}
              fill={color}
              data-kernel={kernel}
              data-index={i}
              data-value={String(v)}
            >
              <title>{`i = ${i}: ${v}`}</title>
            </rect>
          );
        })}
      </g>
      {Array.from({ length: n }, (_, i) => i)
        .filter((i) => i % xEvery === 0)
        .map((i) => (
          <text key={i} class="tick" x={left + (i + 0.5) * band} y={height - bottom + 14} text-anchor="middle">{i}</text>
        ))}
      <text class="axis-label" x={left + plotW / 2} y={height - 4} text-anchor="middle">index i</text>
      <text class="axis-label" transform={`translate(11 ${top + (height - top - bottom) / 2}) rotate(-90)`} text-anchor="middle">
        {AXIS_LABEL[kind]}
      </text>
    </svg>
  );
}
