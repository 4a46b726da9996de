// The Attention figure's head comparison (the softpick paper's): on the
// two-head dormant example, for each chosen normalizer, each head's mean
// weight on key 0 (the first token) as a bar on [0, 1] with the sink
// threshold marked, whether that makes it a sink, and the kurtosis and
// max/median |o| of its output with the share of exact-zero outputs; the
// sink rate per normalizer. Draw only: views/attention/heads.js computes it.
import { html } from './h.js';
import { Text } from './axes.js';
import { fmt, pct } from './format.js';
import { wrap, titleLines, Title, LINE, SP } from './text.js';

const PAD = 8, LABEL = 118, NAME_H = 22, HEAD_H = 2 * LINE + 12, BAR_H = 11, VALUE_W = 96;

const TITLE = 'Heads: sinks and outliers';

const subtitle = (H) => `${H.label} (n = ${H.n}); a sink head puts a mean weight above ${fmt(H.sinkEps, 3)} on key 0`;

/** Where the parts go: { title, rowsY, blockH, height }. */
export function headsLayout(H, width) {
  const title = titleLines(TITLE, subtitle(H), width, PAD);
  const blockH = (r) => NAME_H + (r.error ? wrap(r.error, width - 2 * PAD, 11.5).length * LINE + 6 : H.heads * HEAD_H) + 6;
  const heights = H.rows.map(blockH);
  return { title, rowsY: title.height + 18, heights, height: title.height + 18 + heights.reduce((a, b) => a + b, 0) + 8 };
}

// "—" where the C library reports 0 for an undefined measure (a constant output, a zero median).
const defined = (v) => (v > 0 ? fmt(v, 3) : '—');

function HeadRow({ r, h, H, x0, y, width, th, color }) {
  const bw = Math.max(40, Math.min(260, width - 2 * PAD - LABEL - VALUE_W)), bx = x0 + LABEL;
  // on a narrow figure the measures line starts at the margin
  const w = r.keyZero[h], dormant = H.dormant.includes(h);
  return html`<g data-head=${String(h)} data-sink=${r.sink[h] ? '1' : '0'}>
    <${Text} x=${x0 + PAD} y=${y + BAR_H - 1} th=${th} size=${11.5}>${`head ${h}`}${dormant ? html`<tspan fill=${th.muted}>${`${SP}dormant`}</tspan>` : ''}</${Text}>
    <rect x=${bx} y=${y} width=${bw} height=${BAR_H} fill=${th.grid} />
    <rect x=${bx} y=${y} width=${Math.max(w > 0 ? 1 : 0, bw * w)} height=${BAR_H} fill=${color} data-metric="key0" data-value=${String(w)} />
    <line x1=${bx + bw * H.sinkEps} x2=${bx + bw * H.sinkEps} y1=${y - 3} y2=${y + BAR_H + 3} stroke=${th.ink} stroke-dasharray="2 2" />
    <${Text} x=${bx + bw + 6} y=${y + BAR_H - 1} th=${th} size=${11.5}>${fmt(w, 3)}${r.sink[h] ? html`<tspan fill=${th.warn} font-weight="600">${`${SP}sink`}</tspan>` : ''}</${Text}>
    <${Text} x=${width < 480 ? x0 + PAD : bx} y=${y + BAR_H + LINE + 1} th=${th} size=${11} color=${th.muted}>
      kurtosis${SP}<tspan fill=${th.ink} data-metric="kurtosis" data-value=${String(r.kurtosis[h])}>${defined(r.kurtosis[h])}</tspan>
      ${`${SP}· max/median${SP}`}<tspan fill=${th.ink} data-metric="max-median" data-value=${String(r.maxMedian[h])}>${defined(r.maxMedian[h])}</tspan>
      ${`${SP}· zero outputs${SP}`}<tspan fill=${th.ink} data-metric="zero-outputs" data-value=${String(r.zeros[h])}>${pct(r.zeros[h], 3)}</tspan>
    </${Text}>
  </g>`;
}

export function HeadComparison({ H, P, y0, width, th, colors }) {
  let y = y0 + P.rowsY;
  return html`<g data-section="heads">
    <${Title} t=${P.title} title=${TITLE} y=${y0} th=${th} pad=${PAD} />
    ${H.rows.map((r, k) => {
      const top = y, color = colors?.get(r.id) ?? th.accent;
      y += P.heights[k];
      const name = html`<${Text} x=${PAD} y=${top + 15} th=${th} weight="600">
        <tspan fill=${color}>■</tspan>${`${SP}${r.id}`}${r.error ? '' : html`<tspan fill=${th.muted} font-weight="400">${`${SP}— sink rate${SP}`}</tspan><tspan
          font-weight="400" data-metric="sink-rate" data-value=${String(r.sinkRate)}>${pct(r.sinkRate, 3)}</tspan>`}</${Text}>`;
      if (r.error) {
        return html`<g key=${r.id} data-heads-of=${r.id}>${name}
          ${wrap(r.error, width - 2 * PAD, 11.5).map((l, i) => html`<${Text} key=${i} x=${PAD} y=${top + NAME_H + 12 + LINE * i} th=${th} color=${th.warn} data-error=${`heads-${r.id}`}>${l}</${Text}>`)}
        </g>`;
      }
      return html`<g key=${r.id} data-heads-of=${r.id}>${name}
        ${Array.from({ length: H.heads }, (_, h) => html`<${HeadRow} key=${h} r=${r} h=${h} H=${H} x0=${0} y=${top + NAME_H + h * HEAD_H} width=${width} th=${th} color=${color} />`)}
      </g>`;
    })}
    <${Text} x=${PAD + LABEL} y=${y0 + P.rowsY - 4} th=${th} size=${10} color=${th.muted}>mean weight on key 0 (the first token)</${Text}>
  </g>`;
}
