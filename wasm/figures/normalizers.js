// The Normalizers figure: the logits (optional), then one bar chart per
// normalizer with its parameters in the title and its metrics below
// (entropy, largest probability, support, sum). Probability charts share one
// y axis, so their heights compare directly.
import { html } from './h.js';
import { Svg, Text, box } from './axes.js';
import { Bars, barDomain } from './bars.js';
import { fmt } from './format.js';
import { theme } from './palette.js';

const PANEL_W = 260, PANEL_H = 232, INPUT_H = 150, HEAD = 34;
const Y_LABEL = { probs: 'pᵢ', log_probs: 'log pᵢ', weights: 'wᵢ' };

function layout(data, width, input) {
  const cols = Math.max(1, Math.min(data.series.length, Math.floor(width / PANEL_W)));
  const rows = Math.ceil(data.series.length / cols);
  return { cols, rows, top: input ? INPUT_H : 0, pw: width / cols };
}

/** The natural height of the figure at a width. */
export function normalizersHeight(data, width, { input = true } = {}) {
  const l = layout(data, width, input);
  return l.top + Math.max(1, l.rows) * PANEL_H + 8;
}

const paramText = (s) => Object.entries(s.params).map(([k, v]) => `${k} = ${fmt(v, 3)}`).join(', ');

export function NormalizersFigure({ data, colors, theme: t, width = 720, height, input = true }) {
  const th = theme(t);
  const h = height ?? normalizersHeight(data, width, { input });
  const l = layout(data, width, input);
  let pmax = 0;
  for (const s of data.series) if (s.y && s.kind === 'probs') for (const v of s.y) pmax = Math.max(pmax, v);
  const probDomain = barDomain([pmax > 0 ? pmax : 1]);
  const T = data.temperature;
  return html`<${Svg} width=${width} height=${h} th=${th} title=${`normalizers: ${data.series.map((s) => s.name).join(', ')}`} data-figure="normalizers">
    ${input && html`<g data-panel="logits">
      <${Text} x=${12} y=${18} th=${th} weight="600">logits x${T !== 1 ? html`<tspan fill=${th.muted} font-weight="400"> (each normalizer sees x / T, T = ${fmt(T, 4)})</tspan>` : ''}</${Text}>
      <${Bars} bx=${box(0, 24, width, INPUT_H - 24, { bottom: 30 })} values=${data.x} color=${th.bar} th=${th} id="logits" yLabel="xᵢ" />
    </g>`}
    ${data.series.map((s, i) => {
      const c = i % l.cols, r = Math.floor(i / l.cols);
      const x0 = c * l.pw, y0 = l.top + r * PANEL_H;
      const color = colors?.get(s.name) ?? th.accent;
      const bx = box(x0, y0 + HEAD, l.pw, PANEL_H - HEAD - 24, { bottom: 30 });
      const m = s.metrics;
      return html`<g key=${s.name} data-output=${s.name} data-kind=${s.kind}>
        <rect x=${x0 + 12} y=${y0 + 8} width="10" height="10" fill=${color} />
        <${Text} x=${x0 + 27} y=${y0 + 17} th=${th} weight="600">${s.name}<tspan fill=${th.muted} font-weight="400">${paramText(s) ? ` (${paramText(s)})` : ''}</tspan></${Text}>
        <${Text} x=${x0 + 12} y=${y0 + 30} th=${th} size=${10} color=${th.muted}>${s.kind === 'probs' ? 'probabilities' : s.kind === 'log_probs' ? 'log-probabilities (metrics on exp y)' : 'weights (metrics on |w| / Σ|w|)'}</${Text}>
        ${s.error
          ? html`<${Text} x=${x0 + 12} y=${y0 + HEAD + 30} th=${th} color=${th.warn} data-error=${s.name}>${s.error}</${Text}>`
          : html`<${Bars} bx=${bx} values=${s.y} domain=${s.kind === 'probs' ? probDomain : undefined} color=${color} th=${th} id=${s.name}
              highlight=${m.argmax} yLabel=${Y_LABEL[s.kind]} />
            <${Text} x=${x0 + 12} y=${y0 + PANEL_H - 10} th=${th} size=${11}>
              <tspan fill=${th.muted}>entropy </tspan><tspan data-metric="entropy" data-value=${String(m.entropy)}>${fmt(m.entropy, 4)}</tspan>
              <tspan fill=${th.muted}> · max </tspan><tspan data-metric="max" data-value=${String(m.max)}>${fmt(m.max, 4)}</tspan>
              <tspan fill=${th.muted}> · support </tspan><tspan data-metric="support" data-value=${String(m.support)}>${m.support}</tspan><tspan fill=${th.muted}>/${s.y.length}</tspan>
              <tspan fill=${th.muted}> · Σ </tspan><tspan data-metric="sum" data-value=${String(m.sum)}>${fmt(m.sum, 5)}</tspan>
            </${Text}>`}
      </g>`;
    })}
  </${Svg}>`;
}
