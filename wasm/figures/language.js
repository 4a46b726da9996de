// The Language figure: a tiny GPT trained with each chosen normalizer
// (views/language computes it; this only draws), in sections from top to
// bottom: training (loss in nats and bits against the step and the seconds,
// the unigram entropy and ln V labelled), generation (the selected run's
// text and one step's candidates before and after each decoding stage),
// attention (the selected layer's maps, BOS mass per head with the sink
// threshold, the residual stream's measures), and length generalisation
// with quantisation. Partial data (a run in progress) draws what exists. The
// data is the view's (a results file's is checked against
// views/language/data-shape.js first); every text goes into the SVG as text.
import { html } from './h.js';
import { Svg, Text } from './axes.js';
import { seriesLegend } from './legend.js';
import { theme } from './palette.js';
import { pct } from './format.js';
import { sectionTitle } from './experiments-plot.js';
import { runsOf, shown } from './language-plot.js';
import { Training, trainingHeight } from './language-training.js';
import { Generation, generationHeight } from './language-generation.js';
import { Attention, attentionHeight } from './language-attention.js';
import { LengthsQuant, lengthsHeight } from './language-lengths.js';

const GAP = 14, EXAMPLE = 18;
const CORPUS = { grammar: 'the seeded grammar text', bigram_backcopy: 'Bigram-Backcopy', text: 'your text' };
const PHASES = { train: 'training', evaluate: 'validating', inspect: 'inspecting', generate: 'generating', quantize: 'quantizing', done: 'done' };

const corpusName = (d) => CORPUS[d.corpus] ?? d.corpus;

/** Where the sections go at a width: { runs, sel, head, legend, y: { training, generation, attention, lengths }, height }. */
export function languageLayout(data, width = 960, th = theme('light'), colors = null) {
  const d = data;
  const runs = runsOf(d, colors, th), sel = d.sel;
  const head = sectionTitle(`A language model on ${corpusName(d)}`,
    `${d.vocab} tokens (BOS included), context ${d.context}, ${d.steps} steps of ${d.batch} windows, positions ${d.positions}`, 0, width, th);
  const HEAD = head.height + 16;
  const legend = seriesLegend(runs.map((r) => ({ name: r.name, color: r.color, note: r.error !== null ? 'stopped' : r.diverged !== null ? `diverged at step ${r.diverged}` : undefined })),
    { x: 8, y: HEAD, width: width - 16, th });
  const y = {};
  let at = HEAD + legend.height + (d.example.length ? EXAMPLE : 0);
  y.training = at; at += trainingHeight(runs, width) + GAP;
  y.generation = at; at += generationHeight(d, runs, sel, width) + GAP;
  y.attention = at; at += attentionHeight(d, runs, sel, width) + GAP;
  y.lengths = at; at += lengthsHeight(d, runs, width);
  return { runs, sel, head, legend, y, height: at + 8 };
}

/** The natural height of the figure at a width. */
export function languageHeight(data, width = 960) {
  return languageLayout(data, width).height;
}

// one training window's first tokens, the triggers marked (Bigram-Backcopy)
function Example({ data, y, width, th }) {
  const ex = data.example[0];
  if (!ex) return null;
  const texts = ex.texts, trig = ex.trigger, bos = data.bos;
  const max = Math.floor((width - 140) / 8);
  const toks = texts.slice(0, max).map((t, i) => ({ t: shown(t, bos), trig: trig[i], bosTok: bos && t === '' }));
  const bb = toks.some((x) => x.trig);
  return html`<g data-example>
    <${Text} x=${8} y=${y} th=${th} size=${11} color=${th.muted}>${bb ? 'a training window (triggers in red):' : 'a training window:'}</${Text}>
    <text x=${bb ? 210 : 128} y=${y} font-size="11.5" font-family="ui-monospace, Menlo, Consolas, monospace" xml:space="preserve">${toks.map((x, i) => html`<tspan key=${i}
      fill=${x.trig ? th.warn : x.bosTok ? th.muted : th.ink} font-weight=${x.trig ? '700' : '400'}>${x.bosTok ? 'BOS ' : x.t}</tspan>`)}</text>
  </g>`;
}

export function LanguageFigure({ data, colors, theme: t, width = 960, height }) {
  const th = theme(t);
  const d = data;
  const L = languageLayout(d, width, th, colors);
  const { runs, legend } = L;
  const h = height ?? L.height;
  const phase = PHASES[d.phase];
  const title = `Language model on ${corpusName(d)}: ${runs.map((r) => r.name).join(', ')}`;
  return html`<${Svg} width=${width} height=${h} th=${th} title=${title} data-figure="language">
    ${L.head.el}
    ${phase && html`<${Text} x=${8} y=${L.head.height + 2} th=${th} size=${11} color=${th.muted} data-phase=${d.phase}>${
      `${phase}${d.phase !== 'done' ? ` (${pct(d.progress, 3)} of the work)` : ''}`}</${Text}>`}
    ${legend.el}
    <${Example} data=${d} y=${L.y.training - 6} width=${width} th=${th} />
    <${Training} data=${d} runs=${runs} y0=${L.y.training} width=${width} th=${th} />
    <${Generation} data=${d} runs=${runs} sel=${L.sel} y0=${L.y.generation} width=${width} th=${th} />
    <${Attention} data=${d} runs=${runs} sel=${L.sel} y0=${L.y.attention} width=${width} th=${th} />
    <${LengthsQuant} data=${d} runs=${runs} y0=${L.y.lengths} width=${width} th=${th} />
  </${Svg}>`;
}
