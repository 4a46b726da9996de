// The Language view's state: a tiny GPT (core/src/model through
// analysis/language.js) trained on a corpus — the seeded English-like
// grammar (default), Bigram-Backcopy (Guo et al. 2024: V tokens, k of them
// triggers after which the next token copies the one before the trigger) or
// a text the user brings (the text itself is not in the state: a page passes
// it beside the state, the CLI reads --text FILE) — one model per normalizer
// (1 to 4, side by side on the same batches: one seed), with the model's
// size (d, heads, layers, context, positions, norm, tied, mlp), the
// optimizer with its hyperparameters as `<optimizer>.<param>`
// (adamw.lr=0.001; the view's defaults are nanoGPT's baby GPT: lr 1e-3,
// beta2 0.99, weight decay 0.1), schedule, warm-up, steps, batch, the
// quantizers of the post-training-quantisation panel, the normalizers'
// parameters as `<normalizer>.<param>` (trainNorm: their float parameters
// are trained) and the seed.
//
// Display keys (a change keeps the trained models): `sel` (the run the
// generation, attention and file are of; default the first), `layer` and
// `head` (the attention shown: that layer's heads, the head drawn with its
// tokens), `genStep` (the generation step whose candidates are drawn: 0 the
// last), and the generation: `prompt`, `length`, the decoding stages `on` and
// their values keyed by stage name (`top_p=0.9`: the Sampling view's shape),
// `genSeed`. A new prompt, length, stage or layer redoes that part (cheap)
// on the trained models.
import { decodeStages } from '../../analysis/decoding.js';
import { LANGUAGE_LIMITS } from '../../analysis/language.js';
import { trainable, panelQuantizers } from '../experiments/schema.js';

export const MAX_NORMALIZERS = 4;
export const CORPORA = ['grammar', 'bigram_backcopy', 'text'];
/** The longest prompt a state holds (characters). */
export const PROMPT_MAX = 256;
/** The longest generation of the view (tokens per run; the API allows LANGUAGE_LIMITS.generate). */
export const LENGTH_MAX = Math.min(1000, LANGUAGE_LIMITS.generate);

// softmax, the baseline every sink paper measures, and softpick, whose paper
// (000#82) reports no attention sink: the pair the inspection is about.
const WANTED = ['softmax', 'softpick'];
// two grids (uniform, log) and a float format; AdaRound is slow (its 1000 iterations per matrix): on demand only
const WANTED_QUANT = ['uniform', 'log_quant', 'fp8_e4m3'];
// temperature and a nucleus cut: what LLM decoders run by default (the Sampling view's default)
const WANTED_ON = ['temperature', 'top_p'];
const optimizerNames = (ss) => ss.kernels('optimizer').map((k) => k.name);

/** nanoGPT's baby GPT (AdamW lr 1e-3, beta2 0.99, weight decay 0.1), for every optimizer that has those parameters. */
export const LM_OPT_DEFAULTS = Object.freeze({ lr: 1e-3, beta2: 0.99, weight_decay: 0.1 });
/** The view's defaults of one optimizer: LM_OPT_DEFAULTS where it has the parameter (its registry defaults otherwise). */
export const optimizerDefaults = (k) => Object.fromEntries(Object.entries(LM_OPT_DEFAULTS).filter(([n]) => !k || k.params.some((p) => p.name === n)));

export const schema = {
  view: 'language',
  fields: [
    { key: 'corpus', type: 'choice', label: 'corpus', options: CORPORA, default: 'grammar',
      optionHelp: { grammar: 'a seeded English-like text', bigram_backcopy: 'Guo et al. 2024: bigrams, and a copy after each trigger token', text: 'your text' } },
    { key: 'values', type: 'number', label: 'tokens V (Bigram-Backcopy)', integer: true, min: 4, max: 64, default: 64, when: (s) => s.corpus === 'bigram_backcopy' },
    { key: 'keys', type: 'number', label: 'trigger tokens k (Bigram-Backcopy)', integer: true, min: 1, max: 16, default: 3, when: (s) => s.corpus === 'bigram_backcopy' },
    { key: 'normalizers', type: 'names', label: 'normalizers', options: trainable, min: 1, max: MAX_NORMALIZERS,
      default: (ss) => WANTED.filter((n) => trainable(ss).includes(n)) },
    { key: 'trainNorm', type: 'bool', label: 'train the normalizers\' parameters', default: true },
    { key: 'd', type: 'number', label: 'model width d', integer: true, min: 16, max: 384, default: 64 },
    { key: 'heads', type: 'number', label: 'heads', integer: true, min: 1, max: 8, default: 4 },
    { key: 'layers', type: 'number', label: 'layers', integer: true, min: 1, max: 8, default: 2 },
    { key: 'context', type: 'number', label: 'context (tokens a window)', integer: true, min: 8, max: 1024, log: true, default: 64 },
    { key: 'positions', type: 'choice', label: 'positions', options: (ss) => ss.enums.positions,
      default: (ss) => (ss.enums.positions.includes('rope') ? 'rope' : ss.enums.positions[0]) },
    { key: 'norm', type: 'choice', label: 'layer norm', options: (ss) => ss.enums.norm,
      default: (ss) => (ss.enums.norm.includes('layernorm') ? 'layernorm' : ss.enums.norm[0]) },
    { key: 'tied', type: 'bool', label: 'tied unembedding', default: true },
    { key: 'mlp', type: 'bool', label: 'MLP', default: true },
    { key: 'optimizer', type: 'choice', label: 'optimizer', options: optimizerNames,
      default: (ss) => (optimizerNames(ss).includes('adamw') ? 'adamw' : optimizerNames(ss)[0]) },
    { key: 'params', type: 'params', scope: 'kernel', label: 'hyperparameters',
      kernels: (s, ss) => ss.kernels('optimizer').filter((k) => k.name === s.optimizer),
      current: (s) => s.optimizer, overrides: () => LM_OPT_DEFAULTS },
    { key: 'schedule', type: 'choice', label: 'lr schedule', options: (ss) => ss.schedules,
      default: (ss) => (ss.schedules.includes('cosine') ? 'cosine' : ss.schedules[0]) },
    { key: 'warmup', type: 'number', label: 'warm-up steps', integer: true, min: 0, max: 20000, uiMax: 1000, default: 50 },
    { key: 'steps', type: 'number', label: 'steps', integer: true, min: 10, max: 20000, log: true, default: 600 },
    { key: 'batch', type: 'number', label: 'batch (windows a step)', integer: true, min: 1, max: 128, log: true, default: 12 },
    { key: 'quantizers', type: 'names', label: 'quantizers', options: panelQuantizers, min: 0, max: 6,
      default: (ss) => WANTED_QUANT.filter((n) => panelQuantizers(ss).includes(n)) },
    { key: 'normParams', type: 'params', scope: 'kernel', label: 'normalizer parameters',
      kernels: (s, ss) => ss.kernels('normalizer').filter((k) => s.normalizers.includes(k.name)) },
    { key: 'seed', type: 'number', label: 'seed', help: 'the initial weights and the batches (every run the same)', integer: true, min: 0, max: 2 ** 31 - 1, default: 0 },
    // display fields (state/schema.js): a change keeps the trained models
    { key: 'sel', type: 'choice', label: 'run shown', options: trainable, default: null, display: true },
    { key: 'layer', type: 'number', label: 'attention of layer', integer: true, min: 0, max: 7, default: 0, display: true },
    { key: 'head', type: 'number', label: 'head with its tokens', integer: true, min: 0, max: 7, default: 0, display: true },
    { key: 'prompt', type: 'text', label: 'prompt', maxLength: PROMPT_MAX, default: '', display: true },
    { key: 'length', type: 'number', label: 'tokens to generate', integer: true, min: 1, max: LENGTH_MAX, log: true, default: 120, display: true },
    { key: 'on', type: 'names', label: 'decoding stages on', options: (ss) => decodeStages(ss).map((k) => k.name),
      default: (ss) => decodeStages(ss).map((k) => k.name).filter((n) => WANTED_ON.includes(n)), display: true },
    // one value per stage, keyed by the stage's name (the Sampling view's shape)
    { key: 'stages', type: 'params', kernels: (s, ss) => decodeStages(ss), paramKey: (k, p) => (p.name === k.stage_param ? k.name : null), display: true },
    { key: 'genSeed', type: 'number', label: 'generation seed', integer: true, min: 0, max: 2 ** 31 - 1, default: 1, display: true },
    { key: 'genStep', type: 'number', label: 'candidates of step (0: the last)', integer: true, min: 0, max: LENGTH_MAX, default: 0, display: true },
  ],
  // heads divide d (the largest count <= heads that does); warm-up fits in the run; sel is a trained normalizer; the
  // layer and head shown exist; the stages in registry order
  finish(s, ss) {
    while (s.d % s.heads !== 0) s.heads -= 1;
    if (s.warmup > s.steps) s.warmup = s.steps;
    if (s.sel !== null && !s.normalizers.includes(s.sel)) s.sel = null;
    if (s.layer >= s.layers) s.layer = s.layers - 1;
    if (s.head >= s.heads) s.head = s.heads - 1;
    if (s.genStep > s.length) s.genStep = 0;
    if (ss) {
      const order = decodeStages(ss).map((k) => k.name);
      s.on = order.filter((n) => s.on.includes(n));
    }
    return s;
  },
};

// (every display field keeps the trained models: state/schema.js runKey; of those, these redo a part of the work)
/** Keys whose change redoes the generation of every run (no training). */
export const GENERATION_KEYS = ['prompt', 'length', 'on', 'stages', 'genSeed'];
/** Keys whose change redoes the inspection (the maps of another layer). */
export const INSPECT_KEYS = ['layer'];
const keyOf = (s, keys) => JSON.stringify(keys.map((k) => [k, s[k]]));
/** The generation's keys as one string. */
export const generationKey = (s) => keyOf(s, GENERATION_KEYS);
