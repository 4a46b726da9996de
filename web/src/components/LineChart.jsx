// One dispersion chart: n on a log2 axis, one line per normalizer (and
// metric), hand-written SVG with d3 scales. Points computed by the current
// run are drawn solid, the previous run's values (still being recomputed)
// faded. Hovering reports the nearest grid index to the parent, which draws
// the rule and readout in every chart at once. Each line carries
// data-series, data-metric and data-values (every value, "NaN" where none)
// so tests and tools can read what is drawn.
import { scaleLinear, scaleLog } from 'd3-scale';
import { nearestIndex } from '../lib/dispersionView.js';
import { fmt } from '../lib/format.js';

export const LINE_CHART = { width: 380, height: 250, left: 48, right: 12, top: 14, bottom: 36 };

// "M x y L x y ..." over indices [from, to) with finite values; NaN breaks the line.
function pathOf(ns, values, x, y, from, to) {
  let d = '', pen = false;
  for (let j = Math.max(0, from); j < Math.min(to, ns.length); j++) {
    const v = values[j];
    const py = Number.isFinite(v) ? y(v) : NaN;
    if (!Number.isFinite(py)) { pen = false; continue; }
    d += `${pen ? 'L' : 'M'}${x(ns[j]).toFixed(2)},${py.toFixed(2)}`;
    pen = true;
  }
  return d;
}

export function LineChart({ id, title, yLabel, n, lines, yDomain, yLog = false, reference, hover, onHover, yTickFormat }) {
  const { width, height, left, right, top, bottom } = LINE_CHART;
  const x = scaleLog().base(2).domain([n[0], n[n.length - 1]]).range([left, width - right]);
  const y = (yLog ? scaleLog().base(2) : scaleLinear()).domain(yDomain).range([height - bottom, top]);
  if (yLog) y.clamp(true);
  const e0 = Math.ceil(Math.log2(n[0])), e1 = Math.floor(Math.log2(n[n.length - 1]));
  const every = Math.max(1, Math.ceil((e1 - e0 + 1) / 7));
  const xTicks = [];
  for (let e = e0; e <= e1; e += every) xTicks.push(e);
  const yTicks = yLog
    ? (() => {
      const lo = Math.ceil(Math.log2(yDomain[0])), hi = Math.floor(Math.log2(yDomain[1]));
      const st = Math.max(1, Math.ceil((hi - lo + 1) / 6));
      const out = [];
      for (let e = lo; e <= hi; e += st) out.push(2 ** e);
      return out;
    })()
    : y.ticks(5);
  const tickText = yTickFormat ?? ((t) => fmt(t, 3));
  const safe = (v) => (yLog && !(v > 0) ? NaN : v);

  function onMove(e) {
    const svg = e.currentTarget;
    const r = svg.getBoundingClientRect();
    if (!r.width) return;
    const lx = ((e.clientX - r.left) * width) / r.width;
    onHover?.(nearestIndex(n, x.invert(Math.min(width - right, Math.max(left, lx)))));
  }

  const hx = hover != null && hover < n.length ? x(n[hover]) : null;
  return (
    <figure class="line-chart">
      <figcaption>{title}</figcaption>
      <svg class="chart" viewBox={`0 0 ${width} ${height}`} width={width} height={height} role="img"
        aria-label={`${title} against n (log scale)`} data-chart={id}
        onPointerMove={onMove} onPointerDown={onMove} onPointerLeave={() => onHover?.(null)}>
        {yTicks.map((t) => (
          <g key={`y${t}`}>
            <line class="grid" x1={left} x2={width - right} y1={y(t)} y2={y(t)} />
            <text class="tick" x={left - 6} y={y(t)} dy="0.32em" text-anchor="end">{tickText(t)}</text>
          </g>
        ))}
        {xTicks.map((e) => (
          <g key={`x${e}`}>
            <line class="grid" x1={x(2 ** e)} x2={x(2 ** e)} y1={top} y2={height - bottom} />
            <text class="tick" x={x(2 ** e)} y={height - bottom + 14} text-anchor="middle">
              2<tspan dy="-4" font-size="8">{e}</tspan>
            </text>
          </g>
        ))}
        <rect class="frame" x={left} y={top} width={width - left - right} height={height - top - bottom} />
        {reference && (
          <path class="reference" d={pathOf(n, reference.values.map(safe), x, y, 0, n.length)}>
            <title>{reference.label}</title>
          </path>
        )}
        {lines.map((l) => {
          const vals = l.values.map(safe);
          return (
            <g key={`${l.series}:${l.metric}`} data-line={l.series}>
              <path class={`curve stale${l.dashed ? ' dashed' : ''}`} stroke={l.color} d={pathOf(n, vals, x, y, l.fresh - 1, n.length)} />
              <path class={`curve${l.dashed ? ' dashed' : ''}`} stroke={l.color} d={pathOf(n, vals, x, y, 0, l.fresh)}
                data-series={l.series} data-metric={l.metric} data-fresh={l.fresh}
                data-values={l.values.map((v) => String(v)).join(',')} />
            </g>
          );
        })}
        {hx !== null && (
          <g class="hover" data-hover-n={n[hover]}>
            <line class="rule" x1={hx} x2={hx} y1={top} y2={height - bottom} />
            {lines.map((l) => {
              const v = safe(l.values[hover]);
              return Number.isFinite(v) ? <circle key={`${l.series}:${l.metric}`} cx={hx} cy={y(v)} r={3} fill={l.color} /> : null;
            })}
          </g>
        )}
        <text class="axis-label" x={left + (width - left - right) / 2} y={height - 4} text-anchor="middle">n (log scale)</text>
        <text class="axis-label" transform={`translate(11 ${top + (height - top - bottom) / 2}) rotate(-90)`} text-anchor="middle">{yLabel}</text>
      </svg>
    </figure>
  );
}
