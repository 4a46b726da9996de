// The distribution over a large vocabulary as a rank plot: probability
// against rank, both on log axes, aggregated into at most a few hundred
// groups of ranks (see rankBins) so that a move at n = 32000 redraws a few
// paths, not thousands of bars. Gray: the temperature softmax (before the
// filters); colored: the renormalized distribution that is sampled; dots:
// the empirical frequency of the live draws. The strip under the plot shows,
// per group, the fraction of tokens kept.
import { scaleLog } from 'd3-scale';
import { fmt } from '../lib/format.js';

export const RANK_PLOT = { width: 620, height: 280, left: 54, right: 14, top: 12, bottom: 52 };
const STRIP = { gap: 6, height: 10 };

function decadeTicks(lo, hi, max = 7) {
  const a = Math.ceil(Math.log10(lo) - 1e-9), b = Math.floor(Math.log10(hi) + 1e-9);
  const every = Math.max(1, Math.ceil((b - a + 1) / max));
  const out = [];
  for (let e = b; e >= a; e -= every) out.push(e);
  return out.reverse();
}
const pow10 = (e) => (e >= 0 && e <= 4 ? String(10 ** e) : <>10<tspan dy="-4" font-size="8">{e}</tspan></>);

function pathOf(points) {
  let d = '', pen = false;
  for (const [px, py] of points) {
    if (!Number.isFinite(px) || !Number.isFinite(py)) { pen = false; continue; }
    d += `${pen ? 'L' : 'M'}${px.toFixed(1)},${py.toFixed(1)}`;
    pen = true;
  }
  return d;
}

export function RankPlot({ bins, n, kept, showEmpirical }) {
  const { width, height, left, right, top, bottom } = RANK_PLOT;
  let lo = 1;
  for (const b of bins) for (const v of [b.base, b.final]) if (v > 0 && v < lo) lo = v;
  const yMin = 10 ** Math.floor(Math.log10(Math.max(lo, 1e-30)));
  const x = scaleLog().domain([1, Math.max(2, n)]).range([left, width - right]);
  const y = scaleLog().domain([yMin, 1]).range([height - bottom, top]).clamp(true);
  const at = (b) => x(Math.sqrt(b.r0 * b.r1));
  const yv = (v) => (v > 0 ? y(v) : NaN);
  const plotBottom = height - bottom;
  const stripTop = plotBottom + STRIP.gap;
  return (
    <svg class="chart rank-plot" viewBox={`0 0 ${width} ${height}`} role="img" data-chart="rank"
      aria-label="probability against rank, log-log: before and after the filters, and the draws">
      {decadeTicks(yMin, 1).map((e) => (
        <g key={`y${e}`}>
          <line class="grid" x1={left} x2={width - right} y1={y(10 ** e)} y2={y(10 ** e)} />
          <text class="tick" x={left - 6} y={y(10 ** e)} dy="0.32em" text-anchor="end">{pow10(e)}</text>
        </g>
      ))}
      {decadeTicks(1, n).map((e) => (
        <g key={`x${e}`}>
          <line class="grid" x1={x(10 ** e)} x2={x(10 ** e)} y1={top} y2={plotBottom} />
          <text class="tick" x={x(10 ** e)} y={stripTop + STRIP.height + 13} text-anchor="middle">{pow10(e)}</text>
        </g>
      ))}
      <rect class="frame" x={left} y={top} width={width - left - right} height={plotBottom - top} />
      {kept > 0 && kept < n && (
        <g class="kept-edge">
          <line x1={x(kept + 0.5)} x2={x(kept + 0.5)} y1={top} y2={stripTop + STRIP.height} />
          <text class="tick" x={x(kept + 0.5) + 4} y={top + 11}>{kept.toLocaleString('en-US')} kept</text>
        </g>
      )}
      <path class="curve base-curve" d={pathOf(bins.map((b) => [at(b), yv(b.base)]))} data-series="base" />
      <path class="curve final-curve" d={pathOf(bins.map((b) => [at(b), yv(b.final)]))} data-series="final" />
      {showEmpirical && (
        <g class="emp-dots" data-series="empirical">
          {bins.map((b, j) => (b.emp > 0 ? <circle key={j} cx={at(b)} cy={y(b.emp)} r={2.3} /> : null))}
        </g>
      )}
      <g class="kept-strip" data-strip="kept">
        {bins.map((b, j) => {
          const x0 = x(b.r0 - 0.5 > 1 ? b.r0 - 0.5 : 1), x1 = x(b.r1 + 0.5 < n ? b.r1 + 0.5 : n);
          return <rect key={j} x={x0} y={stripTop} width={Math.max(0.5, x1 - x0)} height={STRIP.height}
            class={b.kept > 0 ? 'strip-kept' : 'strip-dropped'} fill-opacity={b.kept > 0 ? 0.25 + 0.75 * b.kept : 1} />;
        })}
      </g>
      <text class="axis-label" x={left + (width - left - right) / 2} y={height - 3} text-anchor="middle">
        rank (log scale; strip: kept tokens)
      </text>
      <text class="axis-label" transform={`translate(12 ${top + (plotBottom - top) / 2}) rotate(-90)`} text-anchor="middle">
        probability per token (log)
      </text>
      <title>{`${bins.length} groups of ranks; min probability shown ${fmt(yMin, 2)}`}</title>
    </svg>
  );
}
