// The Language view: schema (state), model (numbers; the training of a tiny
// GPT per normalizer as a stepper, analysis/language.js), figure (marks). Its
// compute and start take the user's text beside the state:
// compute(ss, state, { text }) (corpus 'text').
import { schema } from './schema.js';
import { compute, start, table, describe } from './model.js';
import { openModel } from './opened.js';
import { LanguageFigure, languageHeight } from '../../figures/language.js';
import { kernelColors } from '../../figures/palette.js';

const ID = 'language';
const LABEL = 'Language';
const SUMMARY = 'a tiny GPT trained live per normalizer: loss curves, generation through the decoding stages, attention sinks, length generalisation, quantisation';
const WIDTH = 960;
const colors = (ss) => kernelColors(ss, 'normalizer');
// The data's shape (data-shape.js), loaded when a results file is read: a page that only draws does without it.
const dataShape = () => import('./data-shape.js').then((m) => m.dataShape);

export const language = {
  id: ID, label: LABEL, summary: SUMMARY, schema, dataShape, compute, start, table, describe,
  Figure: LanguageFigure, height: languageHeight, width: WIDTH, colors,
  // the playground's worker (web/src/runner/worker.js): a run of a model file ('open': generates without training),
  // and the model file of the run shown ('save')
  worker: { start: { open: openModel }, calls: { save: (stepper) => ({ bytes: stepper.save() }) } },
};

// The view without its training (no compute or start, and with them no model API): what a page that only draws needs
// (a widget's main thread, with the training in its Web Worker). A literal, as experimentsDisplay (a spread would keep
// `language` and the training code in every bundle importing this module).
export const languageDisplay = {
  id: ID, label: LABEL, summary: SUMMARY, schema, dataShape, table, describe,
  Figure: LanguageFigure, height: languageHeight, width: WIDTH, colors,
};
export default language;

// What the playground's View builds its controls from.
export { languageOptions, decodingOf, BITS, MAP_MAX, SINK_THRESHOLD } from './model.js';
export { MAX_NORMALIZERS, CORPORA, PROMPT_MAX, LENGTH_MAX, LM_OPT_DEFAULTS, GENERATION_KEYS, INSPECT_KEYS, generationKey } from './schema.js';
export { trainable, panelQuantizers } from '../experiments/schema.js';
