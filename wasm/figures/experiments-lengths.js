// The Experiments figure's length-generalisation section (the dispersion
// curve of "softmax is not enough", on a trained model): against the test
// length n on a log2 axis, the training lengths shaded and labelled
// "trained", (1) accuracy with chance dashed, (2) attention entropy (the
// heads' mean, nats) with ln n, the entropy of uniform weights, dashed, and
// (3) the largest weight with 1/n, uniform, dashed; one colour per
// normalizer. Before the test phase the charts stand empty and say so.
import { html } from './h.js';
import { Text, linear, logScale, powerTicks, pathOf } from './axes.js';
import { Chart, Rule, slots, values, sectionTitle } from './experiments-plot.js';

const METRICS = [
  { key: 'accuracy', title: 'accuracy', label: 'accuracy' },
  { key: 'entropy', title: 'attention entropy (nats)', label: 'entropy H' },
  { key: 'maxWeight', title: 'largest weight', label: 'max weight' },
];

const TITLE = 'Length generalisation';
const testList = (data) => data.testN;
function subtitle(data, runs) {
  const trainN = data.trainN, ns = testList(data);
  return runs.some((r) => r.lengths.length > 0) ? `accuracy and the attention of test sets at each n (trained at n = ${trainN[0]}…${trainN[1]})`
    : `tested after training${ns.length ? ` at n = ${ns.join(', ')}` : ''}`;
}

/** The section's height at a width. */
export const lengthsHeight = (data, runs, width) => sectionTitle(TITLE, subtitle(data, runs), 0, width).height + slots(METRICS.length, 0, width).height + 6;

// n from a to b at every power of two between (a reference curve's points).
function powersBetween(a, b) {
  const out = [a];
  for (let p = 2 ** Math.ceil(Math.log2(a) + 1e-9); p < b; p *= 2) if (p > a) out.push(p);
  out.push(b);
  return out;
}

export function Lengths({ data, runs, y0, width, th }) {
  const trainN = data.trainN;
  const ns = [...runs.flatMap((r) => r.lengths.map((p) => p.n)), ...data.testN, ...trainN]
    .filter((n) => n > 0);
  const lo = ns.length ? Math.min(...ns) : 4, hi = ns.length ? Math.max(...ns, lo * 2) : 4096;
  const T = sectionTitle(TITLE, subtitle(data, runs), y0, width, th);
  const { boxes } = slots(METRICS.length, y0 + T.height, width);
  const chance = data.chance;
  const ref = powersBetween(lo, hi);
  const charts = METRICS.map((m, i) => {
    const bx = boxes[i];
    const x = logScale([lo, hi], [bx.x, bx.right], 2);
    let top = 1;
    if (m.key === 'entropy') for (const v of [Math.log(hi), ...runs.flatMap((r) => r.lengths.map((p) => p.entropy))]) if (v > top) top = v;
    const y = linear([0, m.key === 'entropy' ? top * 1.04 : 1], [bx.bottom, bx.y]);
    const band = trainN[0] > 0 && trainN[1] >= trainN[0];
    const bl = band ? Math.max(bx.x, x(trainN[0])) : 0, br = band ? Math.min(bx.right, x(trainN[1])) : 0;
    return html`<${Chart} key=${m.key} id=${`length-${m.key}`} title=${m.title} bx=${bx} x=${x} y=${y} xTicks=${powerTicks(x, 2, Math.max(3, Math.floor(bx.w / 42)))}
        yTicks=${y.ticks(5)} xLabel="test length n (log scale)" yLabel=${m.label} th=${th}>
      ${band && html`<g data-train-band=${`${trainN[0]},${trainN[1]}`}>
        <rect x=${bl} y=${bx.y} width=${Math.max(1.5, br - bl)} height=${bx.h} fill=${th.grid} opacity="0.7" />
        <${Text} x=${bl + 3} y=${bx.y + 12} th=${th} size=${10} color=${th.muted}>trained</${Text}>
      </g>`}
      ${m.key === 'accuracy' && html`<${Rule} bx=${bx} y=${y} v=${chance} th=${th} id="chance" label="chance: 1/C" />`}
      ${m.key === 'entropy' && html`<path d=${pathOf(ref, ref.map(Math.log), x, y) || undefined} fill="none" stroke=${th.muted} stroke-dasharray="4 3" data-reference="ln-n"><title>ln n: uniform weights over n keys</title></path>`}
      ${m.key === 'maxWeight' && html`<path d=${pathOf(ref, ref.map((n) => 1 / n), x, y) || undefined} fill="none" stroke=${th.muted} stroke-dasharray="4 3" data-reference="uniform"><title>1/n: uniform weights</title></path>`}
      ${runs.map((r) => {
        const xs = r.lengths.map((p) => p.n), ys = r.lengths.map((p) => p[m.key]);
        return html`<g key=${r.name}>
          <path d=${pathOf(xs, ys, x, y) || undefined} fill="none" stroke=${r.color} stroke-width="1.8" data-series=${r.name} data-metric=${m.key}
            data-n=${values(xs)} data-value=${values(ys)} />
          ${xs.map((n, j) => (ys[j] === null ? null : html`<circle key=${j} cx=${x(n).toFixed(2)} cy=${y(ys[j]).toFixed(2)} r="2.6" fill=${r.color} />`))}
        </g>`;
      })}
    </${Chart}>`;
  });
  return html`<g data-section="lengths">
    ${T.el}
    ${charts}
  </g>`;
}
