// The Experiments figure's training section: each normalizer's training
// loss (log scale, with ln C, the loss of a uniform guess over the C
// classes) and accuracy (with chance 1/C dashed and the 95 % line dotted)
// against the step, one colour per normalizer; a ring where a run first
// reached 95 %, an × where a diverged run stopped; under the charts one
// line per run: where it stands, its trained normalizer parameters, when it
// reached 95 % or diverged.
import { html } from './h.js';
import { Text, linear, logScale, powerTicks, pathOf } from './axes.js';
import { fmt, pct } from './format.js';
import { Chart, Rule, RunName, slots, values, cross, sectionTitle, LINE } from './experiments-plot.js';

const REACH = 0.95;

const TITLE = 'Training';
const subtitle = (runs) => `the training batches' loss and accuracy against the step, every normalizer on the same data${runs.some((r) => r.curve.step.length > 0) ? '' : ': press Train'}`;
// a run's line: one line beside its name, or (narrow) two
const twoLines = (width) => width < 640;
// the name column: the longest name (bold, about 7.4 px a character) and its key
const nameWidth = (runs) => Math.max(120, 28 + 7.4 * Math.max(0, ...runs.map((r) => r.name.length)));

/** The section's height at a width. */
export function trainingHeight(runs, width) {
  return sectionTitle(TITLE, subtitle(runs), 0, width).height + slots(2, 0, width).height + 8
    + LINE * Math.max(1, runs.length) * (twoLines(width) || nameWidth(runs) > width / 3 ? 2 : 1) + 10;
}

// The last point of a curve with a finite value: its index, or -1.
const lastFinite = (ys) => { for (let i = ys.length - 1; i >= 0; i--) if (ys[i] !== null) return i; return -1; };

function extentPos(runs, extra) {
  let lo = Infinity, hi = -Infinity;
  for (const v of [...runs.flatMap((r) => r.curve.loss), extra]) if (v > 0) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  return lo <= hi ? [lo, hi] : [0.01, 1];
}

function Curves({ runs, metric, x, y, th, label }) {
  return runs.map((r) => {
    const xs = r.curve.step, ys = r.curve[metric];
    const end = lastFinite(ys);
    const k = r.curve.step.indexOf(r.reached);
    return html`<g key=${r.name}>
      <path d=${pathOf(xs, ys, x, y) || undefined} fill="none" stroke=${r.color} stroke-width="1.7" stroke-linejoin="round"
        data-series=${r.name} data-metric=${metric} data-step=${values(xs)} data-value=${values(ys)} />
      ${metric === 'accuracy' && r.reached !== null && html`<circle cx=${x(r.reached)} cy=${y(k >= 0 && ys[k] !== null ? ys[k] : REACH)} r="4.5"
        fill=${th.paper} stroke=${r.color} stroke-width="2" data-reached=${r.name} data-value=${String(r.reached)}><title>${`${r.name} reached ${pct(REACH, 2)} at step ${r.reached}`}</title></circle>`}
      ${r.diverged !== null && end >= 0 && html`<g data-diverged=${r.name} data-value=${String(r.diverged)}>
        <path d=${cross(x(xs[end] ?? r.diverged), y(ys[end]), 5)} stroke=${r.color} stroke-width="2.4"><title>${`${r.name} diverged at step ${r.diverged}`}</title></path>
        ${label && html`<${Text} x=${x(xs[end] ?? r.diverged) + (x(xs[end] ?? r.diverged) > (x.range()[0] + x.range()[1]) / 2 ? -8 : 8)} y=${y(ys[end]) - 8} th=${th} size=${10.5}
          color=${th.warn} anchor=${x(xs[end] ?? r.diverged) > (x.range()[0] + x.range()[1]) / 2 ? 'end' : 'start'}>${`diverged at step ${r.diverged}`}</${Text}>`}
      </g>`}
    </g>`;
  });
}

function RunLine({ r, steps, x0, y, th, two, nameW }) {
  const end = lastFinite(r.curve.accuracy), loss = r.curve.loss[lastFinite(r.curve.loss)] ?? null;
  const sep = (t) => html`<tspan fill=${th.muted}>${t}</tspan>`;
  const m = (name, v, text) => html`<tspan data-metric=${name} data-value=${String(v)}>${text}</tspan>`;
  return html`<g data-run=${r.name}>
    <${RunName} r=${r} x=${x0} y=${y} th=${th} />
    <${Text} x=${two ? x0 + 14 : x0 + nameW} y=${two ? y + LINE : y} th=${th} size=${11.5}>
      ${sep('step ')}${m('step', r.step, String(r.step))}${sep(` of ${steps}`)}
      ${loss !== null && html`${sep(' · loss ')}${m('loss', loss, fmt(loss, 3))}`}
      ${end >= 0 && html`${sep(' · accuracy ')}${m('accuracy', r.curve.accuracy[end], pct(r.curve.accuracy[end], 3))}`}
      ${r.normParams.map(([k, v]) => html`${sep(` · ${k} `)}${v === null ? '—' : m(`param-${k}`, v, fmt(v, 3))}`)}
      ${r.reached !== null ? html`${sep(` · ${pct(REACH, 2)} at step `)}${m('reached', r.reached, String(r.reached))}` : ''}
      ${r.diverged !== null ? html`<tspan fill=${th.warn}>${` · diverged at step ${r.diverged}`}</tspan>` : ''}
      ${r.error !== null ? html`<tspan fill=${th.warn} data-error=${r.name}>${` · stopped: ${r.error}`}</tspan>` : ''}
    </${Text}>
  </g>`;
}

export function Training({ data, runs, y0, width, th }) {
  const steps = data.steps;
  const { chance, classes } = data;
  const chanceLoss = classes > 1 ? Math.log(classes) : null;
  const T = sectionTitle(TITLE, subtitle(runs), y0, width, th);
  const { boxes: [lb, ab], height } = slots(2, y0 + T.height, width);
  const xl = linear([0, steps], [lb.x, lb.right]), xa = xl.copy().range([ab.x, ab.right]);
  const yl = logScale(extentPos(runs, chanceLoss), [lb.bottom, lb.y]), ya = linear([0, 1], [ab.bottom, ab.y]);
  const y1 = y0 + T.height + height + 8, two = twoLines(width) || nameWidth(runs) > width / 3, nameW = nameWidth(runs);
  return html`<g data-section="training">
    ${T.el}
    <${Chart} id="loss" title="loss (log scale)" bx=${lb} x=${xl} y=${yl} xTicks=${xl.ticks(5)} yTicks=${powerTicks(yl)} xLabel="step" yLabel="cross-entropy" th=${th}>
      <${Rule} bx=${lb} y=${yl} v=${chanceLoss} th=${th} id="chance-loss" label=${`ln C = ${fmt(chanceLoss, 3)}: a uniform guess over ${classes} classes`} />
      <${Curves} runs=${runs} metric="loss" x=${xl} y=${yl} th=${th} label=${true} />
    </${Chart}>
    <${Chart} id="accuracy" title="accuracy" bx=${ab} x=${xa} y=${ya} xTicks=${xa.ticks(5)} yTicks=${ya.ticks(5)} xLabel="step" yLabel="accuracy" th=${th}>
      <${Rule} bx=${ab} y=${ya} v=${chance} th=${th} id="chance" label=${`chance: 1/C = ${fmt(chance, 3)}`} />
      <${Rule} bx=${ab} y=${ya} v=${REACH} th=${th} dash="1 3" id="reach" label="95 %" />
      <${Curves} runs=${runs} metric="accuracy" x=${xa} y=${ya} th=${th} />
    </${Chart}>
    ${runs.map((r, i) => html`<${RunLine} key=${r.name} r=${r} steps=${data.steps} x0=${8} y=${y1 + LINE * i * (two ? 2 : 1) + 10} th=${th} two=${two} nameW=${nameW} />`)}
  </g>`;
}
