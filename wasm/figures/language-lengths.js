// The Language figure's last row: (1) length generalisation — the
// validation loss at each position of windows up to 4x the training context
// (the longest window each run was evaluated at), the context marked and
// labelled; learned positions stop at the context (data.lengthNote says
// why); (2) post-training quantisation — the validation loss against the
// bits of the weights, one line style and marker per quantizer, the float
// model's loss dashed in the run's colour.
import { html } from './h.js';
import { Text, linear, pathOf } from './axes.js';
import { seriesLegend } from './legend.js';
import { fmt } from './format.js';
import { Chart, values, sectionTitle, LINE } from './experiments-plot.js';
import { slotsR, LabelledRule } from './language-plot.js';

const TITLE = 'Length generalisation and quantisation';
const DASH = [undefined, '6 2 1.5 2', '1.5 2.5', '8 4'];
const subtitle = (data) => `loss at each position of windows up to ${data.lengthNs.length ? Math.max(...data.lengthNs) : '4 ×'} tokens`
  + ` (trained at ${data.context}); validation loss with the weights quantized`;

export function lengthsHeight(data, runs, width) {
  const qs = quantizersOf(runs);
  return sectionTitle(TITLE, subtitle(data), 0, width).height + slotsR(2, 0, width).height + 8 + (data.lengthNote ? LINE : 0)
    + 14 * Math.ceil((qs.length + 1) / 4) + 8;
}

const quantizersOf = (runs) => [...new Set(runs.flatMap((r) => r.quant.map((q) => q.quantizer)))];

function marker(k, x, y, r) {
  switch (k % 4) {
    case 1: return `M${x - r},${y - r}h${2 * r}v${2 * r}h${-2 * r}z`;
    case 2: return `M${x},${y - r * 1.2}l${r * 1.1},${r * 2}h${-r * 2.2}z`;
    case 3: return `M${x},${y - r * 1.3}l${r * 1.3},${r * 1.3}l${-r * 1.3},${r * 1.3}l${-r * 1.3},${-r * 1.3}z`;
    default: return `M${x - r},${y}a${r},${r} 0 1,0 ${2 * r},0a${r},${r} 0 1,0 ${-2 * r},0`;
  }
}

export function LengthsQuant({ data, runs, y0, width, th }) {
  const T = sectionTitle(TITLE, subtitle(data), y0, width, th);
  const { boxes: [a, b], height } = slotsR(2, y0 + T.height, width, { right: 18 });
  const C = data.context;
  // (1) loss against position, the longest evaluated window per run
  const longest = runs.map((r) => [...r.lengths].reverse().find((x) => x.positionLoss.some((v) => v !== null)) ?? null);
  const maxN = Math.max(C, ...longest.map((x) => x?.n ?? 0), ...data.lengthNs);
  const ys = longest.flatMap((x) => x?.positionLoss ?? []).filter((v) => v !== null);
  const lo = ys.length ? Math.min(...ys) : 0, hi = ys.length ? Math.max(...ys) : 5;
  const xp = linear([0, maxN - 1], [a.x, a.right]), yp = linear([Math.max(0, lo - 0.1), hi + 0.1], [a.bottom, a.y]);
  const cx = xp(C - 0.5);
  // (2) loss against bits
  const qs = quantizersOf(runs);
  const bits = [...new Set([...data.bits, ...runs.flatMap((r) => r.quant.map((q) => q.bits))])].sort((p, q) => p - q);
  const qlo = bits.length ? bits[0] : 2, qhi = bits.length ? bits[bits.length - 1] : 8;
  const qv = runs.flatMap((r) => [...r.quant.map((q) => q.loss), r.floatLoss]).filter((v) => v !== null);
  const xq = linear([qlo - 0.5, qhi + 0.5], [b.x, b.right], 0);
  const yq = linear([qv.length ? Math.max(0, Math.min(...qv) - 0.1) : 0, qv.length ? Math.min(Math.max(...qv), (Math.min(...qv) + 0.1) * 3) + 0.1 : 5], [b.bottom, b.y]);
  const legend = seriesLegend([
    ...qs.map((q, k) => ({ name: q, color: th.ink, dash: DASH[k % DASH.length] })),
    { name: 'float (not quantized)', color: th.muted, dash: '5 4' },
  ], { x: b.x, y: y0 + T.height + height + 12 + (data.lengthNote ? LINE : 0), width: width - b.x, th });
  return html`<g data-section="lengths">
    ${T.el}
    <${Chart} id="position-loss" title="loss against position (length generalisation)" bx=${a} x=${xp} y=${yp} xTicks=${xp.ticks(6)} yTicks=${yp.ticks(5)}
        xLabel="position in the window" yLabel="nats per token" th=${th}>
      ${cx <= a.right && html`<g data-reference="context" data-value=${String(C)}>
        <rect x=${a.x} y=${a.y} width=${Math.max(1, cx - a.x)} height=${a.h} fill=${th.grid} opacity="0.55" />
        <line x1=${cx} x2=${cx} y1=${a.y} y2=${a.bottom} stroke=${th.muted} stroke-dasharray="4 3"><title>${`the training context: ${C} tokens`}</title></line>
        <${Text} x=${cx + 4} y=${a.y + 12} th=${th} size=${10} color=${th.muted}>${`training context ${C}`}</${Text}>
      </g>`}
      ${runs.map((r, i) => {
        const x = longest[i];
        if (!x) return null;
        const pos = x.positionLoss.map((_, j) => j);
        return html`<path key=${r.name} d=${pathOf(pos, x.positionLoss, xp, yp) || undefined} fill="none" stroke=${r.color} stroke-width="1.4"
          data-series=${r.name} data-metric="position-loss" data-n=${String(x.n)} data-value=${values(x.positionLoss)} />`;
      })}
    </${Chart}>
    ${data.lengthNote && html`<${Text} x=${a.x} y=${y0 + T.height + height + 8} th=${th} size=${10.5} color=${th.muted} data-note="lengths">${String(data.lengthNote)}</${Text}>`}
    <${Chart} id="quant" title="validation loss against bits" bx=${b} x=${xq} y=${yq} xTicks=${bits} yTicks=${yq.ticks(5)} xLabel="bits per weight" yLabel="nats per token" th=${th}>
      <${LabelledRule} bx=${b} y=${yq} v=${data.uniform} th=${th} id="uniform" label="ln V: uniform guess" />
      ${runs.map((r) => html`<g key=${r.name} data-quant-of=${r.name}>
        ${r.floatLoss !== null && html`<line x1=${b.x} x2=${b.right} y1=${yq(r.floatLoss)} y2=${yq(r.floatLoss)} stroke=${r.color} stroke-width="1.2" stroke-dasharray="5 4"
          data-metric="float" data-value=${String(r.floatLoss)}><title>${`${r.name}: ${fmt(r.floatLoss, 3)} nats in float`}</title></line>`}
        ${qs.map((q, k) => {
          const pts = r.quant.filter((p) => p.quantizer === q).sort((p1, p2) => p1.bits - p2.bits);
          const xs = pts.map((p) => p.bits), vs = pts.map((p) => p.loss);
          return html`<g key=${q}>
            <path d=${pathOf(xs, vs, xq, yq) || undefined} fill="none" stroke=${r.color} stroke-width="1.6" stroke-dasharray=${DASH[k % DASH.length]} />
            ${pts.map((p, j) => (vs[j] === null ? null : html`<path key=${j} d=${marker(k, xq(xs[j]), yq(vs[j]), 3.6)} fill=${r.color} stroke=${th.paper} stroke-width="0.8"
              data-quant=${q} data-run=${r.name} data-bits=${String(xs[j])} data-value=${String(vs[j])}><title>${`${r.name}, ${q}, ${xs[j]} bits: ${fmt(vs[j], 3)} nats`}</title></path>`))}
          </g>`;
        })}
      </g>`)}
    </${Chart}>
    ${legend.el}
  </g>`;
}
