// The Performance figure: where the numbers come from (user agent, the
// page's build, rounds, input), then one horizontal bar chart per kernel:
// a bar per build (relaxed SIMD, SIMD128, scalar, plain JS), its length the
// median ns per element on a log axis (shorter is faster; the builds differ
// by up to three orders of magnitude) that every panel shares, so bars
// compare across kernels too, a thin line over the rounds' min..max, and
// under it how many times faster than the scalar build and plain JS it is.
// Before a run, the panels hold the builds' names and say to press Run.
import { html } from './h.js';
import { Svg, Text, AxisX, Frame, box, logScale, powerTicks } from './axes.js';
import { seriesLegend } from './legend.js';
import { fmt, count } from './format.js';
import { theme } from './palette.js';
import { wrap, titleLines, Title, SP, LINE } from './text.js';

const PAD = 12, PANEL_W = 380, HEAD = 26, ROW = 36, AXIS = 36, GAP = 10, LEFT = 96;
const x100 = (r) => (r >= 100 ? fmt(r, 3) : fmt(r, 2));

function header(d, width) {
  const runText = d.ran ? `median of ${d.rounds} interleaved rounds of ~${d.ms} ms per build · ${d.input}` : 'not run yet';
  const title = titleLines('Kernel speed in this engine', `n = ${count(d.n)}, ns per element (shorter is faster)`, width);
  const lines = [
    ...(d.userAgent ? wrap(d.userAgent, width - 2 * PAD, 10.5).map((t) => ({ t, kind: 'ua' })) : []),
    ...wrap(`build in use: ${d.pageBuildLabel} · ${runText}`, width - 2 * PAD, 10.5).map((t) => ({ t, kind: 'run' })),
    ...d.builds.filter((b) => !b.available).map((b) => ({ t: `${b.label}: not available (${b.reason})`, kind: 'unavailable', build: b.id })),
  ];
  return { title, lines, legendY: title.height + LINE * lines.length + 14 };
}

function layout(d, width) {
  const h = header(d, width);
  const legend = seriesLegend(d.builds.filter((b) => b.available).map((b) => ({ name: b.label, color: '#000', shape: 'box' })), { x: PAD, y: 0, width: width - 2 * PAD, th: theme('light') });
  const top = h.legendY + legend.height + 6;
  const cols = Math.max(1, Math.min(d.kernels.length, Math.floor(width / PANEL_W)));
  const rows = Math.ceil(d.kernels.length / cols);
  const panelH = HEAD + ROW * Math.max(1, d.builds.length) + AXIS + GAP;
  return { h, top, cols, rows, pw: width / cols, panelH, end: top + rows * panelH + 4 };
}

/** The natural height of the figure at a width. */
export function performanceHeight(d, width) {
  return Math.ceil(layout(d, width).end);
}

// The timed rows of the kernels, and the one log range every panel draws on
// (the rounds' min..max of them all), so bars compare across kernels.
const timedRows = (k) => k.rows.filter((r) => Number.isFinite(r.ns));
function sharedDomain(d) {
  const rows = d.kernels.flatMap(timedRows);
  return [Math.min(...rows.map((r) => r.min ?? r.ns)), Math.max(...rows.map((r) => r.max ?? r.ns))];
}

function Panel({ k, d, domain, x0, y0, pw, panelH, colors, th, pending }) {
  const bx = box(x0, y0 + HEAD, pw, panelH - HEAD - GAP, { left: LEFT, right: 16, top: 4, bottom: AXIS });
  const timed = timedRows(k);
  const x = logScale(domain, [bx.x, bx.right]);
  const shown = d.ran ? k.rows : d.builds.map((b) => ({ build: b.id, label: b.label }));
  return html`<g data-kernel=${k.name}>
    <${Text} x=${x0 + PAD} y=${y0 + 17} th=${th} weight="600">${k.name}</${Text}>
    ${timed.length > 0 && html`<${AxisX} scale=${x} bx=${bx} th=${th} ticks=${powerTicks(x, 10, 6)} label="ns per element (log scale)" />`}
    ${shown.map((r, i) => {
      const y = bx.y + i * ROW + 4, color = colors?.get(r.build) ?? th.accent;
      const label = html`<${Text} x=${bx.x - 8} y=${y + 11} th=${th} anchor="end" size=${11.5}>${r.label}</${Text}>`;
      if (!d.ran) return html`<g key=${r.build} data-build=${r.build}>${label}</g>`;
      if (r.error) return html`<g key=${r.build} data-build=${r.build}>${label}
        <${Text} x=${bx.x + 6} y=${y + 11} th=${th} size=${11} color=${r.build === 'js' ? th.muted : th.warn} data-error=${r.build}>${r.error}</${Text}></g>`;
      // how many times faster than scalar and plain JS (the JS row: none; its slowness is the others' ratio)
      const ratios = r.build === 'js' ? [] : [r.build !== 'scalar' && r.vsScalar != null && `${x100(r.vsScalar)}× scalar`,
        r.vsJs != null && `${x100(r.vsJs)}× JS`].filter(Boolean);
      return html`<g key=${r.build} data-build=${r.build}>
        ${label}
        <rect x=${bx.x} y=${y} width=${Math.max(0.5, x(r.ns) - bx.x)} height="14" fill=${color} data-value=${String(r.ns)}>
          <title>${`${k.name}, ${r.label}: ${fmt(r.ns, 4)} ns per element (rounds ${fmt(r.min, 3)} to ${fmt(r.max, 3)})`}</title></rect>
        <line x1=${x(r.min)} x2=${x(r.max)} y1=${y + 7} y2=${y + 7} stroke=${th.ink} stroke-width="1" opacity="0.55" />
        <${Text} x=${bx.x + 2} y=${y + 27} th=${th} size=${10.5} color=${th.muted}>
          <tspan fill=${th.ink} data-metric="ns" data-value=${String(r.ns)}>${`${fmt(r.ns, 3)} ns`}</tspan>${ratios.length ? `${SP}·${SP}${ratios.join(` ·${SP}`)}` : ''}
        </${Text}>
      </g>`;
    })}
    ${!d.ran && html`<${Text} x=${bx.x + 8} y=${bx.y + 18} th=${th} size=${11} color=${th.muted} data-placeholder>${pending}</${Text}>`}
    <${Frame} bx=${bx} th=${th} />
  </g>`;
}

/** pending: what an empty panel says before the numbers come (the View says when a run is under way). */
export function PerformanceFigure({ data: d, colors, theme: t, width = 760, height, pending = 'press Run to time it here' }) {
  const th = theme(t);
  const L = layout(d, width);
  const h = height ?? L.end;
  const domain = sharedDomain(d);
  const legend = seriesLegend(d.builds.filter((b) => b.available).map((b) => ({ name: b.label, color: colors?.get(b.id) ?? th.accent, shape: 'box' })),
    { x: PAD, y: L.h.legendY, width: width - 2 * PAD, th });
  return html`<${Svg} width=${width} height=${h} th=${th} data-figure="performance" data-ran=${d.ran ? '1' : '0'}
      title=${`kernel speed, ns per element at n = ${d.n}: ${d.kernels.map((k) => k.name).join(', ')}`}>
    <${Title} t=${L.h.title} title="Kernel speed in this engine" y=${0} th=${th} />
    ${L.h.lines.map((l, i) => html`<${Text} key=${i} x=${PAD} y=${L.h.title.height + 10 + LINE * i} th=${th} size=${10.5}
      color=${l.kind === 'unavailable' ? th.warn : th.muted} data-line=${l.kind} data-unavailable=${l.build}>${l.t}</${Text}>`)}
    ${legend.el}
    ${d.kernels.map((k, i) => html`<${Panel} key=${k.name} k=${k} d=${d} domain=${domain} x0=${(i % L.cols) * L.pw} y0=${L.top + Math.floor(i / L.cols) * L.panelH}
      pw=${L.pw} panelH=${L.panelH} colors=${colors} th=${th} pending=${pending} />`)}
  </${Svg}>`;
}
