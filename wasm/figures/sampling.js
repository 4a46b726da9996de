// The Sampling figure. Top: the decoding pipeline (one box per registry
// stage with its parameter and how many tokens it keeps), the distribution —
// per token for a small vocabulary (outline: softmax(x / T); filled: the
// renormalized kept distribution, gray where dropped; ticks: the frequency
// of the draws), by rank on log axes for a large one (with a strip of the
// kept ranks and the most probable tokens) — and the draws' agreement (TV
// distance, chi-square). Bottom: Gumbel-Softmax samples on the triangle and
// the gradient estimators' bias and variance against τ, log axes.
import { scaleBand, scaleLog } from './scale.js';
import { useMemo } from 'preact/hooks';
import { html } from './h.js';
import { Svg, Text, AxisX, AxisY, Frame, box, linear, logScale, powerTicks, pathOf } from './axes.js';
import { seriesLegend } from './legend.js';
import { Simplex } from './sampling-simplex.js';
import { fmt, count, pct } from './format.js';
import { theme, listColors } from './palette.js';
import { wrap, charsIn, titleLines, Title, SP, LINE } from './text.js';

const PAD = 12, STAGE_H = 52, STAGE_MIN_W = 118, STAGE_GAP = 16;
const DIST_H = 230, RANK_H = 250, TOP_W = 248, PANEL_H = 260, CHART_N = 200;

const tokenLabel = (d, i) => d.tokens?.[i] ?? `#${i}`;
const wide = (width) => width >= 660;
const rankWide = (width) => width >= 600;
const triple = (v) => `(${v.map((a) => fmt(a, 3)).join(', ')})`;

function stageLayout(d, width) {
  const cols = Math.max(1, Math.min(d.stages.length, Math.floor((width - 2 * PAD + STAGE_GAP) / (STAGE_MIN_W + STAGE_GAP))));
  const rows = Math.ceil(d.stages.length / cols);
  return { cols, rows, w: (width - 2 * PAD - (cols - 1) * STAGE_GAP) / cols, height: rows * (STAGE_H + 8) };
}

function legendItems(d, th) {
  const T = d.temperature;
  return [
    { name: `softmax(x / T)${T !== 1 ? `, T = ${fmt(T, 3)}` : ''}`, color: th.muted, shape: d.small ? 'outline' : 'line' },
    { name: 'kept, renormalized', color: th.accent, shape: d.small ? 'box' : 'line' },
    ...(d.small ? [{ name: 'dropped', color: th.dropped, shape: 'box' }] : []),
    { name: 'draws (frequency)', color: th.empirical, shape: d.small ? 'tick' : 'dot' },
  ];
}
const estimatorItems = (e, colors) => e.lines.map((l) => ({ name: l.name, color: colors.get(l.name), note: l.error ? 'error' : undefined }));

function gumbelNotes(d) {
  const g = d.gumbel, e = d.estimators;
  const notes = [`★ softmax(x) = ${triple(g.softmax ?? [])}${g.mean ? ` · ○ sample mean = ${triple(g.mean)}` : ''}`];
  if (g.counts) notes.push(`samples per class ${g.counts.join(', ')} (expected ${g.softmax.map((p) => fmt(p * g.m, 3)).join(', ')})`);
  if (e && !e.missing) notes.push(`Estimators of ∇ₓ E‖z − target‖², z one-hot ~ softmax(x), target = ${triple(e.target)}, against the exact gradient; ${e.samples} samples per τ.`);
  return notes;
}

/** Every vertical position of the figure at a width (the figure and its height use the same). */
function layout(d, width) {
  const th = theme('light'); // sizes only
  const L = { width };
  let y = 0;
  L.title = titleLines('Decoding', `${d.prompt ? `the next token after “${d.prompt} …”, ` : ''}${count(d.n)} tokens; each stage keeps some and renormalizes`, width);
  y += L.title.height;
  L.st = stageLayout(d, width);
  L.stages = y;
  y += L.st.height;
  const errs = [];
  if (d.error) errs.push(`pipeline: ${d.error}`);
  for (const s of d.stages) if (s.on && s.error) errs.push(`${s.name}: ${s.error}`);
  L.errors = errs.flatMap((e) => wrap(e, width - 2 * PAD, 11));
  L.errorsY = y + 10;
  y += L.errors.length ? LINE * L.errors.length + 8 : 0;
  if (!d.error) {
    L.legend = y + 4;
    y += seriesLegend(legendItems(d, th), { x: 0, y: 0, width: width - 52, th }).height + 10;
    L.chart = y;
    L.chartW = d.small || !rankWide(width) ? width : width - TOP_W - 8;
    y += d.small ? DIST_H : RANK_H;
    if (!d.small) {
      L.top = rankWide(width) ? { x: L.chartW + 4, y: L.chart + 4 } : { x: PAD, y: y + 4 };
      if (!rankWide(width)) y += 44 + 16 * d.top.length;
    }
    L.stats = y + 6;
    L.statLines = statLines(d, width);
    y += 16 * L.statLines.length + 10;
  }
  L.rule = y;
  y += 6;
  const g = d.gumbel;
  L.gtitle = titleLines('Gumbel-Softmax on three classes', `${g.kernel}${g.hard ? ' (hard)' : ''}, τ = ${fmt(g.tau, 3)}, M = ${g.m}, x = ${triple(g.x)}`, width);
  L.gtitleY = y;
  y += L.gtitle.height;
  L.simW = wide(width) ? Math.round(width * 0.4) : width;
  const e = d.estimators;
  L.glegend = y + 10;
  y += e && !e.missing ? seriesLegend(estimatorItems(e, listColors(e.names)), { x: 0, y: 0, width: wide(width) ? width - L.simW - 46 : width - 52, th }).height + 8 : 0;
  L.panels = y;
  y += wide(width) ? PANEL_H : PANEL_H + 2 * CHART_N;
  L.notes = gumbelNotes(d).flatMap((t) => wrap(t, width - 2 * PAD, 10.5));
  L.notesY = y + 12;
  y += LINE * L.notes.length + 12;
  L.end = y;
  return L;
}

/** The natural height of the figure at a width. */
export function samplingHeight(d, width) {
  return Math.ceil(layout(d, width).end);
}

function Stages({ d, x, y, st, colors, th }) {
  return html`<g class="stages">${d.stages.map((s, j) => {
    const c = j % st.cols, r = Math.floor(j / st.cols);
    const bx = x + c * (st.w + STAGE_GAP), by = y + r * (STAGE_H + 8);
    const color = colors?.get(s.name) ?? th.accent;
    const value = s.param ? `${s.param} = ${fmt(s.value, 4)}` : 'no parameter';
    const ran = Number.isInteger(s.kept);
    const detail = !s.on ? html`<tspan fill=${th.muted}>off</tspan>`
      : s.error ? html`<tspan fill=${th.warn}>error (below)</tspan>`
        : !ran ? html`<tspan fill=${th.muted}>not run</tspan>`
          : html`<tspan fill=${th.muted}>→${SP}</tspan><tspan data-value=${String(s.kept)}>${count(s.kept)}</tspan><tspan fill=${th.muted}>${SP}kept</tspan>`;
    return html`<g key=${s.name} data-stage=${s.name} data-stage-on=${s.on ? '1' : '0'} data-stage-kept=${s.on && ran ? s.kept : undefined}>
      <rect x=${bx} y=${by} width=${st.w} height=${STAGE_H} rx="4" fill=${s.on ? th.paper : th.grid} fill-opacity=${s.on ? 1 : 0.5}
        stroke=${s.on ? (s.error ? th.warn : color) : th.frame} stroke-width=${s.on ? 1.6 : 1} stroke-dasharray=${s.on ? undefined : '3 3'} />
      <rect x=${bx + 8} y=${by + 8} width="8" height="8" fill=${color} opacity=${s.on ? 1 : 0.4} />
      <${Text} x=${bx + 21} y=${by + 16} th=${th} size=${11} weight="600" color=${s.on ? th.ink : th.muted}>${s.name}</${Text}>
      <${Text} x=${bx + 8} y=${by + 31} th=${th} size=${10.5} color=${s.on ? th.ink : th.muted} data-param=${s.param ?? undefined}>${value}</${Text}>
      <${Text} x=${bx + 8} y=${by + 45} th=${th} size=${10.5}>${detail}</${Text}>
      ${c < st.cols - 1 && j < d.stages.length - 1 && html`<path d=${`M${bx + st.w + 3},${by + STAGE_H / 2}h${STAGE_GAP - 7}m-4,-3.5l4,3.5l-4,3.5`}
        fill="none" stroke=${th.muted} />`}
    </g>`;
  })}</g>`;
}

function DecodeBars({ d, bx, th }) {
  const n = d.n;
  let hi = 0;
  for (let i = 0; i < n; i++) hi = Math.max(hi, d.base[i], d.final[i], d.freq ? d.freq[i] : 0);
  const y = linear([0, hi > 0 ? hi : 1], [bx.bottom, bx.y], 4);
  const x = scaleBand().domain([...Array(n).keys()]).range([bx.x, bx.right]).paddingInner(0.18);
  const w = Math.max(0.6, x.bandwidth()), y0 = y(0);
  const every = Math.max(1, Math.ceil(n / Math.max(2, Math.floor(bx.w / (d.tokens ? 46 : 26)))));
  const ticks = [...Array(n).keys()].filter((i) => i % every === 0);
  return html`<g data-chart="decode">
    <${AxisY} scale=${y} bx=${bx} th=${th} ticks=${y.ticks(4)} label="probability" zero />
    <${AxisX} scale=${x} bx=${bx} th=${th} ticks=${ticks} band grid=${false} label="token" format=${(i) => (d.tokens ? tokenLabel(d, i) : String(i))} />
    ${d.final.map((f, i) => {
      const kept = f > 0, b = d.base[i], v = kept ? f : b;
      return html`<g key=${i}>
        <rect x=${x(i)} y=${y(v)} width=${w} height=${Math.max(0, y0 - y(v))} fill=${kept ? th.accent : th.dropped}
          data-index=${i} data-kept=${kept ? '1' : '0'} data-value=${String(f)} data-series="final">
          <title>${`${tokenLabel(d, i)}: ${kept ? `kept, p = ${fmt(f, 4)}` : 'dropped'} (softmax(x / T) ${fmt(b, 4)})`}</title>
        </rect>
        <rect x=${x(i)} y=${y(b)} width=${w} height=${Math.max(0, y0 - y(b))} fill="none" stroke=${th.muted} stroke-width="1"
          data-index=${i} data-value=${String(b)} data-series="base" />
        ${d.freq && html`<line x1=${x(i) - 1.5} x2=${x(i) + w + 1.5} y1=${y(d.freq[i])} y2=${y(d.freq[i])} stroke=${th.empirical} stroke-width="2"
          data-index=${i} data-value=${String(d.freq[i])} data-series="empirical" />`}
      </g>`;
    })}
    <${Frame} bx=${bx} th=${th} />
  </g>`;
}

const STRIP = 10;

function RankPlot({ d, bx, th }) {
  const n = d.n;
  let lo = 1;
  for (const b of d.bins) for (const v of [b.base, b.final]) if (v > 0 && v < lo) lo = v;
  const x = scaleLog().domain([1, Math.max(2, n)]).range([bx.x, bx.right]);
  const y = logScale([Math.max(lo, 1e-30), 1], [bx.bottom, bx.y]);
  const xs = d.bins.map((b) => Math.sqrt(b.r0 * b.r1));
  const kx = d.kept > 0 && d.kept < n ? x(d.kept + 0.5) : null;
  const stripY = bx.bottom + 3;
  const axisBx = { ...bx, bottom: bx.bottom + STRIP + 6 };
  const xTicks = powerTicks(x, 10, 7).filter((t) => t.value <= n).map((t) => (t.exp <= 3 ? t.value : t));
  return html`<g data-chart="rank">
    <${AxisY} scale=${y} bx=${bx} th=${th} ticks=${powerTicks(y, 10, 6)} label="probability per token" />
    <${AxisX} scale=${x} bx=${axisBx} th=${th} ticks=${xTicks} format=${(v) => String(v)} label="rank (strip: kept ranks)" />
    <rect x=${bx.x} y=${bx.y} width=${bx.w} height=${bx.h} fill=${th.paper} fill-opacity="0" stroke=${th.frame} />
    ${kx !== null && html`<g data-kept-edge=${d.kept}>
      <line x1=${kx} x2=${kx} y1=${bx.y} y2=${stripY + STRIP} stroke=${th.ink} stroke-dasharray="4 3" />
      <${Text} x=${kx + 4} y=${bx.y + 12} th=${th} size=${10.5}>${count(d.kept)} kept</${Text}>
    </g>`}
    <path d=${pathOf(xs, d.bins.map((b) => b.base), x, (v) => (v > 0 ? y(v) : NaN))} fill="none" stroke=${th.muted} stroke-width="1.6"
      data-series="base" data-values=${d.bins.map((b) => String(b.base)).join(',')} />
    <path d=${pathOf(xs, d.bins.map((b) => b.final), x, (v) => (v > 0 ? y(v) : NaN))} fill="none" stroke=${th.accent} stroke-width="2.2"
      data-series="final" data-values=${d.bins.map((b) => String(b.final)).join(',')} />
    ${d.draws.done > 0 && html`<g data-series="empirical" fill=${th.empirical}>
      ${d.bins.map((b, j) => (b.emp > 0 ? html`<circle key=${j} cx=${x(xs[j])} cy=${y(b.emp)} r="2.2" data-value=${String(b.emp)} />` : null))}
    </g>`}
    <g data-strip="kept">
      ${d.bins.map((b, j) => {
        const x0 = x(Math.max(1, b.r0 - 0.5)), x1 = x(Math.min(n, b.r1 + 0.5));
        return html`<rect key=${j} x=${x0} y=${stripY} width=${Math.max(0.5, x1 - x0)} height=${STRIP}
          fill=${b.kept > 0 ? th.accent : th.dropped} fill-opacity=${b.kept > 0 ? 0.25 + 0.75 * b.kept : 1} data-value=${String(b.kept)} />`;
      })}
    </g>
  </g>`;
}

function TopTokens({ d, x, y, th }) {
  const cols = [['#', 0, 'start'], ['token', 20, 'start'], ['softmax', 134, 'end'], ['sampled', 190, 'end'], ['drawn', 240, 'end']];
  return html`<g class="top-tokens" font-size="10.5" data-top-tokens=${d.top.length}>
    <${Text} x=${x} y=${y + 10} th=${th} size=${11} weight="600">most probable tokens</${Text}>
    ${cols.map(([c, dx, a]) => html`<text key=${c} x=${x + dx} y=${y + 26} text-anchor=${a} fill=${th.muted}>${c}</text>`)}
    ${d.top.map((t, r) => {
      const ty = y + 42 + 16 * r, kept = t.final > 0;
      return html`<g key=${t.id} data-token=${t.id} fill=${kept ? th.ink : th.muted}>
        <text x=${x} y=${ty}>${t.rank}</text>
        <text x=${x + 20} y=${ty}>${tokenLabel(d, t.id)}</text>
        <text x=${x + 134} y=${ty} text-anchor="end" data-value=${String(t.base)}>${fmt(t.base, 3)}</text>
        <text x=${x + 190} y=${ty} text-anchor="end" data-value=${String(t.final)}>${kept ? fmt(t.final, 3) : 'dropped'}</text>
        <text x=${x + 240} y=${ty} text-anchor="end" data-value=${String(t.freq)}>${Number.isFinite(t.freq) ? fmt(t.freq, 3) : '—'}</text>
      </g>`;
    })}
  </g>`;
}

// The draws' numbers as segments [label, metric, value, text, suffix], packed into lines that fit.
function statSegments(d) {
  const s = d.draws;
  return [
    ['kept ', 'kept', d.kept, count(d.kept), ` of ${count(d.n)} tokens`],
    ['kept mass ', 'kept-mass', d.keptMass, pct(d.keptMass), ' of softmax(x / T)'],
    ['draws ', 'draws', s.done, count(s.done), s.done < s.total ? ` of ${count(s.total)} …` : ''],
    ['TV distance ', 'tv', s.tv, fmt(s.tv, 3), ' (draws vs kept)'],
    ['χ² p-value ', 'chi2', s.pValue, fmt(s.pValue, 3), Number.isFinite(s.chi2) ? ` (χ² = ${fmt(s.chi2, 4)}, ${s.dof} dof)` : ''],
  ];
}
function statLines(d, width) {
  const max = charsIn(width - 2 * PAD, 11.5);
  const lines = [[]];
  let len = 0;
  for (const seg of statSegments(d)) {
    const l = seg[0].length + seg[3].length + seg[4].length;
    if (len && len + 3 + l > max) { lines.push([]); len = 0; }
    lines[lines.length - 1].push(seg);
    len += (len ? 3 : 0) + l;
  }
  return lines;
}

function Stats({ d, x, y, th, lines }) {
  const nb = (t) => t.replace(/^ | $/g, SP);
  return html`<g data-stats>${lines.map((segs, j) => html`<${Text} key=${j} x=${x} y=${y + 16 * j} th=${th} size=${11.5} color=${th.muted}>
    ${segs.map(([label, name, v, text, suffix], i) => html`<tspan key=${name}>${nb(`${i ? ' · ' : ''}${label}`)}<tspan data-metric=${name} data-value=${String(v)} fill=${th.ink}>${text}</tspan>${suffix ? nb(suffix) : ''}</tspan>`)}
  </${Text}>`)}</g>`;
}

function TauChart({ id, title, bx, taus, lines, tau, colors, th }) {
  let lo = Infinity, hi = 0;
  for (const l of lines) for (const v of l.values) if (v > 0) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  if (!(hi > 0)) { lo = 1e-3; hi = 1; }
  const x = scaleLog().domain([taus[0], taus[taus.length - 1]]).range([bx.x, bx.right]);
  const y = logScale([lo, hi], [bx.bottom, bx.y]);
  const yv = (v) => (v > 0 ? y(v) : NaN);
  return html`<g data-chart=${id}>
    <${Text} x=${bx.x} y=${bx.y - 6} th=${th} size=${11} weight="600">${title}</${Text}>
    <${AxisY} scale=${y} bx=${bx} th=${th} ticks=${powerTicks(y, 10, 5)} />
    <${AxisX} scale=${x} bx=${bx} th=${th} ticks=${powerTicks(x, 10, 5)} label="τ" />
    <${Frame} bx=${bx} th=${th} />
    ${tau >= taus[0] && tau <= taus[taus.length - 1] && html`<line x1=${x(tau)} x2=${x(tau)} y1=${bx.y} y2=${bx.bottom} stroke=${th.ink}
      stroke-dasharray="4 3" data-tau=${tau} />`}
    ${lines.map((l) => html`<g key=${l.name} data-series=${l.name} data-values=${l.values.map(String).join(',')}>
      <path d=${pathOf(taus, l.values, x, yv)} fill="none" stroke=${colors.get(l.name)} stroke-width="1.8" />
      ${l.values.map((v, j) => (v > 0 ? html`<circle key=${j} cx=${x(taus[j])} cy=${y(v)} r="1.8" fill=${colors.get(l.name)} data-value=${String(v)} />` : null))}
    </g>`)}
  </g>`;
}

function Gumbel({ d, L, th }) {
  const g = d.gumbel, e = d.estimators, width = L.width;
  const isWide = wide(width);
  const ecolors = listColors(e?.names ?? []);
  const simBx = { x: 0, y: L.panels, w: L.simW, h: PANEL_H };
  const chartY = L.panels + (isWide ? 0 : PANEL_H);
  const cw = isWide ? (width - L.simW) / 2 : width;
  const chartBox = (j) => (isWide
    ? box(L.simW + j * cw, chartY, cw, PANEL_H, { left: 46, top: 22, bottom: 36, right: 12 })
    : box(0, chartY + j * CHART_N, width, CHART_N, { left: 52, top: 22, bottom: 36, right: 16 }));
  return html`<g data-panel="gumbel" data-gumbel=${g.samples ? 'ok' : g.missing ? 'missing' : 'error'}>
    <${Title} t=${L.gtitle} title="Gumbel-Softmax on three classes" y=${L.gtitleY} th=${th} />
    ${g.samples
      ? html`<${Simplex} bx=${simBx} th=${th} samples=${g.samples} star=${g.softmax} mean=${g.mean} counts=${g.counts} />`
      : html`<${Text} x=${PAD} y=${simBx.y + 40} th=${th} color=${th.warn} data-error=${g.kernel}>${g.missing ? `${g.kernel} is not in this build` : g.error}</${Text}>`}
    ${e?.missing
      ? html`<${Text} x=${isWide ? L.simW + 12 : PAD} y=${chartY + 40} th=${th} color=${th.warn} data-error="estimators">Estimator statistics are not in this build</${Text}>`
      : e && html`<g data-panel="estimators">
          ${seriesLegend(estimatorItems(e, ecolors), { x: isWide ? L.simW + 46 : 52, y: L.glegend, width: isWide ? width - L.simW - 46 : width - 52, th }).el}
          <${TauChart} id="bias" title="bias ‖E[ĝ] − ∇‖" bx=${chartBox(0)} taus=${e.taus} tau=${g.tau} colors=${ecolors} th=${th}
            lines=${e.lines.map((l) => ({ name: l.name, values: l.bias }))} />
          <${TauChart} id="variance" title="variance E‖ĝ − E[ĝ]‖²" bx=${chartBox(1)} taus=${e.taus} tau=${g.tau} colors=${ecolors} th=${th}
            lines=${e.lines.map((l) => ({ name: l.name, values: l.variance }))} />
        </g>`}
    ${L.notes.map((t, i) => html`<${Text} key=${i} x=${PAD} y=${L.notesY + LINE * i} th=${th} size=${10.5} color=${th.muted}>${t}</${Text}>`)}
  </g>`;
}

export function SamplingFigure({ data: d, colors, theme: t, width = 720, height }) {
  const th = theme(t);
  const L = layout(d, width);
  const h = height ?? Math.ceil(L.end);
  // The Gumbel half changes with its own inputs only: the same element while the draws run, so Preact skips it.
  // (its dots in the theme's accent: the estimators' colours, by their enum, would clash with a kernel colour of the same name)
  const gumbel = useMemo(() => html`<${Gumbel} d=${d} L=${L} th=${th} />`, [d.gumbel, d.estimators, width, th, L.rule]);
  const chartBx = !d.error && box(0, L.chart, L.chartW, d.small ? DIST_H : RANK_H,
    d.small ? { left: 52, bottom: 36, right: 12 } : { left: 56, bottom: 52, right: 14 });
  return html`<${Svg} width=${width} height=${h} th=${th} data-figure="sampling"
      title=${`sampling: ${d.n} tokens, ${d.stages.filter((s) => s.on).map((s) => s.name).join(' → ') || 'no stage'}`}>
    <${Title} t=${L.title} title="Decoding" y=${0} th=${th} />
    <${Stages} d=${d} x=${PAD} y=${L.stages} st=${L.st} colors=${colors} th=${th} />
    ${L.errors.map((e, i) => html`<${Text} key=${i} x=${PAD} y=${L.errorsY + LINE * i} th=${th} size=${11} color=${th.warn} data-error>${e}</${Text}>`)}
    ${!d.error && html`<g>
      ${seriesLegend(legendItems(d, th), { x: chartBx.x, y: L.legend + 10, width: width - chartBx.x, th }).el}
      ${d.small ? html`<${DecodeBars} d=${d} bx=${chartBx} th=${th} />` : html`<${RankPlot} d=${d} bx=${chartBx} th=${th} />`}
      ${!d.small && html`<${TopTokens} d=${d} x=${L.top.x} y=${L.top.y} th=${th} />`}
      <${Stats} d=${d} x=${PAD} y=${L.stats + 12} th=${th} lines=${L.statLines} />
    </g>`}
    <line x1=${PAD} x2=${width - PAD} y1=${L.rule} y2=${L.rule} stroke=${th.grid} />
    ${gumbel}
  </${Svg}>`;
}
