// The Experiments figure: a tiny attention model trained with each chosen
// normalizer (views/experiments computes it; this only draws), in four
// sections from top to bottom: training (loss and accuracy against the
// step), length generalisation (accuracy, entropy and the largest weight
// against the test length), the selected run's attention map by layer and
// head with the head measures, and quantisation (accuracy against bits).
// Partial data (a run in progress) draws what exists; a section whose phase
// has not come says what it will show. The data is the view's (a results
// file's is checked against views/experiments/data-shape.js first).
import { html } from './h.js';
import { Svg, Text } from './axes.js';
import { seriesLegend } from './legend.js';
import { theme } from './palette.js';
import { pct } from './format.js';
import { runsOf, sectionTitle } from './experiments-plot.js';
import { Training, trainingHeight } from './experiments-training.js';
import { Lengths, lengthsHeight } from './experiments-lengths.js';
import { AttentionMaps, mapLayout } from './experiments-map.js';
import { Quantization, quantHeight } from './experiments-quant.js';

const GAP = 14;


/** Where the sections go at a width (colors: as the figure's): { runs, sel, head, legend, map, y: { training, lengths, map, quant }, height }. */
export function experimentsLayout(data, width = 960, th = theme('light'), colors = null) {
  const runs = runsOf(data, colors, th), sel = data.sel, d = data;
  const head = sectionTitle(`Experiments on ${d.task}`, `${d.classes} classes, chance ${pct(d.chance, 3)}, trained at n = ${d.trainN[0]}…${d.trainN[1]}`, 0, width, th);
  const HEAD = head.height + 16;
  const legend = seriesLegend(runs.map((r) => ({ name: r.name, color: r.color, note: r.error !== null ? 'stopped' : r.diverged !== null ? `diverged at step ${r.diverged}` : undefined })),
    { x: 8, y: HEAD, width: width - 16, th });
  const map = mapLayout(runs, sel, width);
  const y = {};
  let at = HEAD + legend.height;
  y.training = at; at += trainingHeight(runs, width) + GAP;
  y.lengths = at; at += lengthsHeight(data, runs, width) + GAP;
  y.map = at; at += map.height + GAP;
  y.quant = at; at += quantHeight(data, runs, width);
  return { runs, sel, head, legend, map, y, height: at + 8 };
}

/** The natural height of the figure at a width. */
export function experimentsHeight(data, width = 960) {
  return experimentsLayout(data, width).height;
}

const PHASES = { train: 'training', test: 'testing at each length', quantize: 'quantizing', done: 'done' };

export function ExperimentsFigure({ data, colors, theme: t, width = 960, height }) {
  const th = theme(t);
  const d = data;
  const L = experimentsLayout(d, width, th, colors);
  const { runs, legend } = L;
  const h = height ?? L.height;
  const progress = d.progress, phase = PHASES[d.phase];
  const title = `Experiments: ${d.task}, ${runs.map((r) => r.name).join(', ')}`;
  return html`<${Svg} width=${width} height=${h} th=${th} title=${title} data-figure="experiments">
    ${L.head.el}
    ${phase && html`<${Text} x=${8} y=${L.head.height + 2} th=${th} size=${11} color=${th.muted} data-phase=${d.phase}>${
      `${phase}${d.phase !== 'done' ? ` (${pct(progress, 3)} of the work)` : ''}`}</${Text}>`}
    ${legend.el}
    <${Training} data=${d} runs=${runs} y0=${L.y.training} width=${width} th=${th} />
    <${Lengths} data=${d} runs=${runs} y0=${L.y.lengths} width=${width} th=${th} />
    <${AttentionMaps} data=${d} runs=${runs} sel=${L.sel} L=${L.map} y0=${L.y.map} width=${width} th=${th} />
    <${Quantization} data=${d} runs=${runs} y0=${L.y.quant} width=${width} th=${th} />
  </${Svg}>`;
}
