// The Language figure's training section: each normalizer's training loss
// (solid, window means) and validation loss (dashed, with dots) in nats per
// token against the step, with the bits axis on the right (nats / ln 2),
// and the training loss against the seconds of training (a smaller panel);
// reference lines labelled: the unigram entropy of the validation tokens
// (what a model that ignores the context reaches) and ln V (a uniform
// guess); an × where a run diverged; under the charts a line per run.
import { html } from './h.js';
import { Text, linear, pathOf } from './axes.js';
import { fmt, count } from './format.js';
import { Chart, RunName, values, cross, sectionTitle, LINE } from './experiments-plot.js';
import { slotsR, LabelledRule, BitsAxis } from './language-plot.js';

const TITLE = 'Training';
const subtitle = (runs) => (runs.some((r) => r.curve.step.length > 0)
  ? 'loss in nats per token (bits on the right) against the step and against seconds of training; every normalizer on the same batches'
  : 'loss against the step and against seconds, every normalizer on the same batches: press Train');
const twoLines = (width) => width < 760;

export function trainingHeight(runs, width) {
  return sectionTitle(TITLE, subtitle(runs), 0, width).height + slotsR(2, 0, width).height + 8 + LINE * Math.max(1, runs.length) * (twoLines(width) ? 2 : 1) + 10;
}

const lastFinite = (ys) => { for (let i = ys.length - 1; i >= 0; i--) if (ys[i] !== null) return i; return -1; };

function lossExtent(runs, refs) {
  let lo = Infinity, hi = -Infinity;
  for (const v of [...runs.flatMap((r) => [...r.curve.loss, ...r.val.loss]), ...refs]) if (v !== null) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  return lo <= hi ? [Math.max(0, lo - 0.05 * (hi - lo + 0.1)), hi + 0.05 * (hi - lo + 0.1)] : [0, 5];
}

function Lines({ runs, by: key, x, y, th, val = true }) {
  return runs.map((r) => {
    const xs = r.curve[key], ys = r.curve.loss, vx = r.val[key], vy = r.val.loss, end = lastFinite(ys);
    return html`<g key=${r.name}>
      <path d=${pathOf(xs, ys, x, y) || undefined} fill="none" stroke=${r.color} stroke-width="1.6" stroke-linejoin="round"
        data-series=${r.name} data-metric="train-loss" data-x=${values(xs)} data-value=${values(ys)} />
      ${val && html`<path d=${pathOf(vx, vy, x, y) || undefined} fill="none" stroke=${r.color} stroke-width="1.4" stroke-dasharray="5 3"
        data-series=${r.name} data-metric="val-loss" data-x=${values(vx)} data-value=${values(vy)} />`}
      ${val && vx.map((s, j) => (vy[j] === null || s === null ? null : html`<circle key=${j} cx=${x(s).toFixed(2)} cy=${y(vy[j]).toFixed(2)} r="2.4" fill=${th.paper} stroke=${r.color} stroke-width="1.3" />`))}
      ${r.diverged !== null && end >= 0 && xs[end] !== null && html`<path d=${cross(x(xs[end]), y(ys[end]), 5)} stroke=${r.color} stroke-width="2.4" data-diverged=${r.name}
        data-value=${String(r.diverged)}><title>${`${r.name} diverged at step ${r.diverged}`}</title></path>`}
    </g>`;
  });
}

function RunLine({ r, data, x0, y, th, two }) {
  const sep = (t) => html`<tspan fill=${th.muted}>${t}</tspan>`;
  const m = (name, v, text) => html`<tspan data-metric=${name} data-value=${String(v)}>${text}</tspan>`;
  const loss = r.curve.loss[lastFinite(r.curve.loss)] ?? null, sinks = r.inspect?.sinks ?? null;
  const steps = data.steps;
  return html`<g data-run=${r.name}>
    <${RunName} r=${r} x=${x0} y=${y} th=${th} />
    <${Text} x=${two ? x0 + 14 : x0 + 150} y=${two ? y + LINE : y} th=${th} size=${11.5}>
      ${sep('step ')}${m('step', r.step, String(r.step))}${sep(` of ${steps}`)}
      ${loss !== null && html`${sep(' · train ')}${m('train-loss', loss, fmt(loss, 3))}`}
      ${r.valLoss !== null && html`${sep(' · validation ')}${m('val-loss', r.valLoss, fmt(r.valLoss, 3))}${sep(' nats = ')}${m('val-bits', r.valBits, fmt(r.valBits, 3))}${sep(' bits')}`}
      ${r.tokensPerSecond !== null && html`${sep(' · ')}${m('tokens-per-second', r.tokensPerSecond, count(r.tokensPerSecond))}${sep(' tokens/s')}`}
      ${sinks !== null && html`${sep(' · sink heads ')}${m('sinks', sinks, String(sinks))}`}
      ${r.normParams.map(([k, v]) => html`${sep(` · ${k} `)}${v === null ? '—' : m(`param-${k}`, v, fmt(v, 3))}`)}
      ${r.diverged !== null ? html`<tspan fill=${th.warn}>${` · diverged at step ${r.diverged}`}</tspan>` : ''}
      ${r.error !== null ? html`<tspan fill=${th.warn} data-error=${r.name}>${` · stopped: ${r.error}`}</tspan>` : ''}
    </${Text}>
  </g>`;
}

export function Training({ data, runs, y0, width, th }) {
  const steps = data.steps;
  const { unigram, uniform } = data;
  const T = sectionTitle(TITLE, subtitle(runs), y0, width, th);
  const wide = width >= 700;
  const { boxes: [a, b], height } = slotsR(2, y0 + T.height, width);
  // the step chart takes 60 % of the row, the seconds chart the rest
  if (wide) { const w = width * 0.6; a.w = w - 56 - 44; a.right = a.x + a.w; b.x = w + 56; b.w = width - w - 56 - 44; b.right = b.x + b.w; }
  const ext = lossExtent(runs, [unigram, uniform]);
  const xs = linear([0, steps], [a.x, a.right]), ys = linear(ext, [a.bottom, a.y]);
  const secs = Math.max(1e-3, ...runs.flatMap((r) => [...r.curve.seconds, ...r.val.seconds]).filter((v) => v !== null));
  const xt = linear([0, secs], [b.x, b.right]), yt = ys.copy().range([b.bottom, b.y]);
  const refs = (bx, y) => html`
    <${LabelledRule} bx=${bx} y=${y} v=${uniform} th=${th} id="uniform" label=${`ln V = ${fmt(uniform, 3)}: uniform guess`}
      title=${`ln V = ${fmt(uniform, 3)} nats: a uniform guess over the ${data.vocab - 1} symbols`} />
    <${LabelledRule} bx=${bx} y=${y} v=${unigram} th=${th} id="unigram" dash="1.5 3" above=${false} label=${`unigram entropy ${fmt(unigram, 3)}`}
      title=${`the entropy of the validation tokens' frequencies (${fmt(unigram, 3)} nats): the loss of a model that ignores the context`} />`;
  const y1 = y0 + T.height + height + 8, two = twoLines(width);
  return html`<g data-section="training">
    ${T.el}
    <${Chart} id="loss-step" title="loss against step (solid: training batches; dashed: validation)" bx=${a} x=${xs} y=${ys} xTicks=${xs.ticks(6)} yTicks=${ys.ticks(5)}
        xLabel="step" yLabel="nats per token" th=${th}>
      ${refs(a, ys)}
      <${Lines} runs=${runs} by="step" x=${xs} y=${ys} th=${th} />
    </${Chart}>
    <${BitsAxis} y=${ys} bx=${a} th=${th} label="bits per token" />
    <${Chart} id="loss-seconds" title="training loss against seconds" bx=${b} x=${xt} y=${yt} xTicks=${xt.ticks(4)} yTicks=${yt.ticks(5)}
        xLabel="seconds of training" yLabel="nats per token" th=${th}>
      ${refs(b, yt)}
      <${Lines} runs=${runs} by="seconds" x=${xt} y=${yt} th=${th} val=${false} />
    </${Chart}>
    <${BitsAxis} y=${yt} bx=${b} th=${th} label="bits per token" />
    ${runs.map((r, i) => html`<${RunLine} key=${r.name} r=${r} data=${data} x0=${8} y=${y1 + LINE * i * (two ? 2 : 1) + 10} th=${th} two=${two} />`)}
  </g>`;
}
