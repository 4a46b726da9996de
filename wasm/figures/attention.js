// The Attention figure: one heat map per attention matrix (a normalizer in
// softmax's place, or a linear form), queries down and keys across with the
// example's tokens on both axes, exact zeros in the theme's zero colour
// (white on paper, black on the dark theme; the smallest positive weight is
// already tinted), a colour legend (square-root scale, so small weights
// show), and the map's measures: mean entropy, exact zeros, largest weight,
// sink (weight on key 0), mean TV distance to softmax attention and the
// output's relative error against softmax's. Under the maps, one row's
// weights in every map as bar charts (the `row` of the data, or the row
// the View hovers). Between the two, the random-feature kernels' error maps
// against softmax attention (attention-errors.js) and the heads of the
// dormant example with each normalizer (attention-heads.js), when the data
// has them. Interactive (playground): onHover(row | null) on
// pointer moves, onSelect(row | null) on a press, and on a focused map
// ↑/↓ (PageUp/PageDown, Home/End) select a row, Escape clears it.
import { html } from './h.js';
import { Svg, Text, box } from './axes.js';
import { RampLegend } from './legend.js';
import { Bars, barDomain } from './bars.js';
import { statsOf, weightMax, weightRamps, mapImage, labelled } from './weights.js';
import { theme } from './palette.js';
import { fmt, pct } from './format.js';
import { RandomFeatureErrors, rfLayout } from './attention-errors.js';
import { HeadComparison, headsLayout } from './attention-heads.js';

const HEAD = 44, TOP = 36, LAB = 46, LEG = 74, PANEL_MIN = 300, LINE = 15, DETAIL_H = 168, CHAR = 6.3;

// Room under a map for the key tokens (written upwards).
const keyRoom = (tokens) => Math.min(60, 10 + CHAR * Math.max(...tokens.map((t) => String(t).length)));

/** Where the parts go: columns, map size, panel size, the error maps and heads sections, detail section. */
export function attentionLayout(data, width = 940, { row, detail = false } = {}) {
  const k = Math.max(1, data.panels.length, data.rf?.maps.length ?? 0);
  const cols = Math.max(1, Math.min(k, Math.floor(width / PANEL_MIN)));
  const pw = width / cols;
  const map = Math.max(110, Math.min(300, Math.floor(pw - LAB - LEG)));
  const below = keyRoom(data.example.tokens);
  const ph = TOP + map + below + 3 * LINE + 14;
  const rows = data.panels.length ? Math.ceil(data.panels.length / cols) : 0;
  let y = HEAD + (rows ? rows * ph : 2 * LINE);
  const rf = data.rf ? rfLayout(data.rf, width, { cols, pw, map }) : null;
  const rfY = y;
  if (rf) y += rf.height;
  const heads = data.heads ? headsLayout(data.heads, width) : null;
  const headsY = y;
  if (heads) y += heads.height;
  const shown = row !== undefined ? row : data.row;
  const hasDetail = detail || (shown !== null && shown !== undefined);
  const detailH = hasDetail ? 28 + (shown === null || shown === undefined ? LINE : Math.ceil(data.panels.filter((p) => !p.error).length / cols) * DETAIL_H) : 0;
  return { cols, pw, map, below, ph, rows, row: shown ?? null, rf, rfY, heads, headsY, detailY: y, height: y + detailH + 6 };
}

export { weightMax, attentionRaster, labelled } from './weights.js';

/** The natural height of the figure at a width (options: row, detail as the figure's props). */
export function attentionHeight(data, width = 940, options = {}) {
  return attentionLayout(data, width, options).height;
}


function wrap(text, width) {
  const max = Math.max(16, Math.floor(width / CHAR)), out = [];
  for (const w of String(text).split(' ')) {
    if (out.length && (out[out.length - 1] + ' ' + w).length <= max) out[out.length - 1] += ' ' + w;
    else out.push(w);
  }
  return out;
}

const Metric = ({ name, value, text }) => html`<tspan data-metric=${name} data-value=${String(value)}>${text ?? fmt(value, 3)}</tspan>`;
const Muted = ({ th, dx, children }) => html`<tspan dx=${dx} fill=${th.muted}>${children}</tspan>`;

function MapPanel({ p, data, L, x0, y0, th, color, row, onHover, onSelect }) {
  const { n, m } = data;
  const tokens = data.example.tokens;
  const M = L.map, mx = x0 + LAB, my = y0 + TOP, cell = M / n, cw = M / m;
  const title = html`<g>
    <rect x=${x0 + 8} y=${y0 + 8} width="10" height="10" rx="2" fill=${color} />
    <${Text} x=${x0 + 23} y=${y0 + 17} th=${th} weight="600">${p.label}${p.kind === 'linear' ? html`<tspan dx="5" fill=${th.muted} font-weight="400">linear form</tspan>` : ''}${p.quantized ? html`<tspan dx="5" fill=${th.muted} font-weight="400">${`${data.quant.name}, ${data.quant.params.bits} bits`}</tspan>` : ''}</${Text}>
  </g>`;
  if (p.error) {
    return html`<g data-map=${p.id} data-kind=${p.kind}>${title}
      <${Text} x=${x0 + 8} y=${my + 16} th=${th} color=${th.warn} size=${11.5} data-error=${p.id}>
        ${wrap(p.error, L.pw - 20).map((t, i) => html`<tspan key=${i} x=${x0 + 8} dy=${i ? LINE : 0}>${t}</tspan>`)}
      </${Text}></g>`;
  }
  const hi = weightMax(p.A);
  const pick = (e) => {
    const r = e.currentTarget.getBoundingClientRect();
    return Math.min(n - 1, Math.max(0, Math.floor(((e.clientY - r.top) / r.height) * n)));
  };
  const keys = (e) => {
    const page = Math.max(1, Math.round(n / 8));
    const cur = row ?? -1;
    const to = { ArrowDown: cur + 1, ArrowUp: cur < 0 ? n - 1 : cur - 1, PageDown: cur + page, PageUp: cur - page, Home: 0, End: n - 1 }[e.key];
    if (e.key === 'Escape') { e.preventDefault(); onSelect(null); return; }
    if (to === undefined) return;
    e.preventDefault();
    onSelect(Math.min(n - 1, Math.max(0, to)));
  };
  const legH = p.signed ? (M - 62) / 2 : Math.min(M - 30, 160);
  const lx = mx + M + 10;
  const ys = labelled(n, M), xs = labelled(m, M);
  const interactive = !!onSelect;
  return html`<g data-map=${p.id} data-kind=${p.kind} data-zeros=${String(statsOf(p.A).zeros)}>
    ${title}
    <g tabindex=${interactive ? 0 : undefined} role=${interactive ? 'group' : undefined} class=${interactive ? 'attn-map' : undefined}
      aria-label=${`${p.label}: attention weights of ${n} queries over ${m} keys${interactive ? '; arrow keys choose a row, Escape clears it' : ''}`}
      onKeyDown=${interactive ? keys : undefined}>
      <image href=${mapImage(p.A, n, m, th)} x=${mx} y=${my} width=${M} height=${M} preserveAspectRatio="none"
        image-rendering="optimizeSpeed" style="image-rendering: pixelated" data-map-image=${p.id} />
      <rect x=${mx} y=${my} width=${M} height=${M} fill=${interactive ? 'transparent' : 'none'} stroke=${th.frame}
        style=${interactive ? 'cursor: crosshair' : undefined}
        onPointerMove=${onHover && ((e) => onHover(pick(e)))} onPointerLeave=${onHover && (() => onHover(null))}
        onClick=${interactive && ((e) => { const i = pick(e); onSelect(i === data.row ? null : i); })} />
      ${row !== null && html`<g pointer-events="none" data-row-mark=${row}>
        <rect x=${mx - 0.5} y=${my + row * cell - 0.5} width=${M + 1} height=${Math.max(1.5, cell) + 1} fill="none" stroke=${th.ink} stroke-width="1.5" />
        <path d=${`M${mx - 9},${my + (row + 0.5) * cell - 4}l6,4l-6,4z`} fill=${th.ink} />
      </g>`}
    </g>
    <g font-size="10" fill=${th.muted} aria-hidden="true">
      ${ys.map((i) => html`<text key=${`q${i}`} x=${mx - (row === i ? 11 : 4)} y=${my + (i + 0.5) * cell} dy="0.32em" text-anchor="end"
        fill=${row === i ? th.ink : undefined} font-weight=${row === i ? 600 : undefined}>${tokens[i]}</text>`)}
      ${xs.map((j) => html`<text key=${`k${j}`} transform=${`translate(${mx + (j + 0.5) * cw} ${my + M + 5}) rotate(-90)`} dy="0.32em" text-anchor="end">${tokens[j]}</text>`)}
      <text x=${mx - 4} y=${my - 4} text-anchor="end" font-style="italic">query ↓</text>
      <text x=${mx + M} y=${my - 4} text-anchor="end" font-style="italic">key →</text>
    </g>
    <${RampLegend} x=${lx} y=${my + 14} h=${legH} ramp=${weightRamps(th).pos} lo=${0} hi=${1} th=${th} label=${p.signed ? '> 0' : 'weight'}
      format=${(t) => fmt(hi * t * t, 2)} zeroNote="exact 0" />
    ${p.signed && html`<${RampLegend} x=${lx} y=${my + legH + 56} h=${legH} ramp=${weightRamps(th).neg} lo=${0} hi=${1} th=${th} label="< 0"
      format=${(t) => fmt(-hi * t * t, 2)} />`}
    <${Text} x=${x0 + 8} y=${my + M + L.below + LINE} th=${th} size=${11}>
      <${Muted} th=${th}>entropy </${Muted}><${Metric} name="entropy" value=${p.mean.entropy} />
      <${Muted} th=${th}> · zeros </${Muted}><${Metric} name="zeros" value=${p.mean.zeros} text=${pct(p.mean.zeros, 3)} />
      <${Muted} th=${th}> · max </${Muted}><${Metric} name="max" value=${p.mean.max} />
    </${Text}>
    <${Text} x=${x0 + 8} y=${my + M + L.below + 2 * LINE} th=${th} size=${11}>
      <${Muted} th=${th}>sink (key 0) </${Muted}><${Metric} name="sink" value=${p.mean.sink} />
      <${Muted} th=${th}> · TV to softmax </${Muted}><${Metric} name="tv" value=${p.tv} />
    </${Text}>
    <${Text} x=${x0 + 8} y=${my + M + L.below + 3 * LINE} th=${th} size=${11}>
      <${Muted} th=${th}>output error vs softmax </${Muted}><${Metric} name="out-error" value=${p.outErr} />
      ${Object.entries(p.head ?? {}).map(([k, v]) => html`<${Muted} key=${k} th=${th}>${` · ${k} `}</${Muted}><${Metric} name=${k} value=${v} />`)}
    </${Text}>
  </g>`;
}

function RowDetail({ data, L, th, colors }) {
  const y0 = L.detailY, row = L.row, tokens = data.example.tokens;
  if (row === null) {
    return html`<${Text} x=${8} y=${y0 + 20} th=${th} color=${th.muted} data-row-hint>
      Hover or press a row of a map (or focus a map and use ↑ ↓) to see that row's weights in every map.</${Text}>`;
  }
  const shown = data.panels.filter((p) => !p.error);
  const vals = [];
  for (const p of shown) for (let j = 0; j < data.m; j++) vals.push(p.A[row * data.m + j]);
  const domain = barDomain(vals);
  return html`<g data-row=${row}>
    <${Text} x=${8} y=${y0 + 20} th=${th} weight="600">Row ${row}${tokens[row] !== undefined && tokens[row] !== String(row) ? ` (${tokens[row]})` : ''}<tspan dx="5" fill=${th.muted} font-weight="400">${`its weights over the ${data.m} keys`}</tspan></${Text}>
    ${shown.map((p, k) => {
      const c = k % L.cols, r = Math.floor(k / L.cols);
      const x0 = c * L.pw, y = y0 + 28 + r * DETAIL_H;
      const at = (name) => p.rows[name][row];
      return html`<g key=${p.id} data-row-of=${p.id}>
        <${Text} x=${x0 + 8} y=${y + 12} th=${th} size=${11}><tspan font-weight="600" fill=${colors?.get(p.id) ?? th.ink}>${p.label}</tspan>
          <${Muted} th=${th} dx="6">${'H '}</${Muted}><${Metric} name="row-entropy" value=${at('entropy')} />
          <${Muted} th=${th}>${' · zeros '}</${Muted}><${Metric} name="row-zeros" value=${at('zeros')} text=${pct(at('zeros'), 3)} />
          <${Muted} th=${th}>${' · max '}</${Muted}><${Metric} name="row-max" value=${at('max')} /></${Text}>
        <${Bars} bx=${box(x0, y + 16, L.pw, DETAIL_H - 18, { left: 46, right: 12, top: 4, bottom: 30 })} values=${p.A.slice(row * data.m, (row + 1) * data.m)}
          domain=${domain} color=${colors?.get(p.id) ?? th.accent} th=${th} id=${`row-${p.id}`} labels=${tokens} xLabel="key" yLabel=${p.kind === 'linear' || p.weights ? 'w' : 'p'} />
      </g>`;
    })}
  </g>`;
}

export function AttentionFigure({ data, colors, theme: t, width = 940, height, row, detail = false, onHover, onSelect }) {
  const th = theme(t);
  const L = attentionLayout(data, width, { row, detail });
  const h = height ?? L.height;
  const ex = data.example;
  const q = data.quant;
  // interactive, the figure is a group (its maps take the keyboard), not one image
  return html`<${Svg} width=${width} height=${h} th=${th} data-figure="attention" role=${onSelect ? 'group' : 'img'}
      title=${`attention on the ${ex.name} example (n = ${data.n}): ${data.panels.map((p) => p.id).join(', ')}${data.rf ? `; random features against softmax: ${data.rf.maps.map((e) => e.id).join(', ')}` : ''}${data.heads ? `; heads with ${data.heads.rows.map((r) => r.id).join(', ')}` : ''}`}>
    <${Text} x=${8} y=${17} th=${th} weight="600">Attention<tspan dx="5" fill=${th.muted} font-weight="400">${`on ${ex.label}`}</tspan></${Text}>
    <${Text} x=${8} y=${33} th=${th} size=${11} color=${th.muted}>${`n = ${data.n} queries × ${data.m} keys, d = ${ex.d}, scores × ${fmt(data.scale, 3)}/√d${data.causal ? ', causal' : ''}${q ? `; each normalizer's rows quantized by ${q.name} (${q.params.bits} bits) and renormalized` : ''}`}</${Text}>
    ${data.panels.length === 0 && html`<${Text} x=${8} y=${HEAD + 18} th=${th} color=${th.muted}>Choose a normalizer or a linear form.</${Text}>`}
    ${data.panels.map((p, k) => html`<${MapPanel} key=${p.id} p=${p} data=${data} L=${L} th=${th} color=${colors?.get(p.id) ?? th.accent}
      x0=${(k % L.cols) * L.pw} y0=${HEAD + Math.floor(k / L.cols) * L.ph} row=${L.row} onHover=${onHover} onSelect=${onSelect} />`)}
    ${L.rf && html`<line x1=${8} x2=${width - 8} y1=${L.rfY + 2} y2=${L.rfY + 2} stroke=${th.grid} />
      <${RandomFeatureErrors} rf=${data.rf} data=${data} P=${L.rf} y0=${L.rfY + 4} th=${th} colors=${colors} />`}
    ${L.heads && html`<line x1=${8} x2=${width - 8} y1=${L.headsY + 2} y2=${L.headsY + 2} stroke=${th.grid} />
      <${HeadComparison} H=${data.heads} P=${L.heads} y0=${L.headsY + 4} width=${width} th=${th} colors=${colors} />`}
    ${(detail || L.row !== null) && html`<${RowDetail} data=${data} L=${L} th=${th} colors=${colors} />`}
  </${Svg}>`;
}
