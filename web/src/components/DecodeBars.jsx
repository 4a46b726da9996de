// A small vocabulary's distributions as bars, in token order: a gray outline
// for the temperature softmax, a filled colored bar for the renormalized
// probability of each kept token, a filled gray bar for each dropped one,
// and a black tick for the empirical frequency of the live draws. Every bar
// carries data-index, data-kept and data-value (the float32 probability).
import { scaleLinear } from 'd3-scale';
import { fmt } from '../lib/format.js';

export const DECODE_BARS = { width: 620, height: 250, left: 46, right: 10, top: 12, bottom: 34 };

export function DecodeBars({ base, final, counts, done }) {
  const { width, height, left, right, top, bottom } = DECODE_BARS;
  const n = base.length;
  let hi = 0;
  for (let i = 0; i < n; i++) hi = Math.max(hi, base[i], final[i], done ? counts[i] / done : 0);
  const y = scaleLinear().domain([0, hi > 0 ? hi : 1]).nice(4).range([height - bottom, top]);
  const band = (width - left - right) / n;
  const gap = Math.min(3, band * 0.2);
  const w = Math.max(0.5, band - gap);
  const y0 = y(0);
  const xEvery = Math.max(1, Math.ceil(n / 16));
  return (
    <svg class="chart decode-bars" viewBox={`0 0 ${width} ${height}`} role="img" data-chart="decode"
      aria-label="probability of each token: before and after the filters, and the draws">
      {y.ticks(4).map((t) => (
        <g key={t}>
          <line class={t === 0 ? 'axis-zero' : 'grid'} x1={left} x2={width - right} y1={y(t)} y2={y(t)} />
          <text class="tick" x={left - 6} y={y(t)} dy="0.32em" text-anchor="end">{fmt(t, 3)}</text>
        </g>
      ))}
      {Array.from(base, (b, i) => {
        const x0 = left + i * band + gap / 2;
        const kept = final[i] > 0;
        const v = kept ? final[i] : b;
        const emp = done ? counts[i] / done : NaN;
        return (
          <g key={i}>
            <rect class={kept ? 'bar bar-kept' : 'bar bar-dropped'} x={x0} y={y(v)} width={w} height={Math.max(0, y0 - y(v))}
              data-index={i} data-kept={kept ? '1' : '0'} data-value={String(final[i])} data-series="final">
              <title>{`token ${i}: ${kept ? `kept, p = ${fmt(final[i], 4)}` : 'dropped'} (softmax ${fmt(b, 4)})`}</title>
            </rect>
            <rect class="bar-base" x={x0} y={y(b)} width={w} height={Math.max(0, y0 - y(b))} />
            {Number.isFinite(emp) && <line class="emp-mark" x1={x0 - 1} x2={x0 + w + 1} y1={y(emp)} y2={y(emp)} />}
          </g>
        );
      })}
      {Array.from({ length: n }, (_, i) => i).filter((i) => i % xEvery === 0).map((i) => (
        <text key={`t${i}`} class="tick" x={left + (i + 0.5) * band} y={height - bottom + 14} text-anchor="middle">{i}</text>
      ))}
      <text class="axis-label" x={left + (width - left - right) / 2} y={height - 3} text-anchor="middle">token i</text>
      <text class="axis-label" transform={`translate(11 ${top + (height - top - bottom) / 2}) rotate(-90)`} text-anchor="middle">probability</text>
    </svg>
  );
}
