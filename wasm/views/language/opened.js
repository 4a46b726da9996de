// A saved model file opened in the Language view (Open weights, a widget's
// model="file.ssm"): a stepper (views/stepper.js) that trains nothing. Its
// data is the view's shape (data-shape.js) with one run, no curves
// (they are a results file's, when the page has one), and the model's
// generation and attention on its own text for the state's display fields;
// a display field changed redoes them (on the next data()). The playground
// runs it in its Web Worker as the view's worker.start.open (index.js), so
// the widget's main thread holds no model code.
import { loadLanguageModel } from '../../analysis/language.js';
import { decodingOf, generationData, inspectionData, fin } from './model.js';
import { generationKey } from './schema.js';

// The inspection in the stepper's shape (model.js: inspect()), on the model's own text.
function inspectOf(lm, text, layer, triggers) {
  const C = lm.options.context;
  const chars = Array.from(text).slice(0, Math.max(1, C - (lm.usesBos ? 1 : 0))).join('');
  if (!chars && !lm.usesBos) return null;
  const x = lm.inspect({ text: chars });
  return inspectionData(x, Math.min(Math.max(0, layer), x.layers - 1), triggers);
}

// The view's data for an opened model: one run, its generation for the state's display fields.
function modelData(ss, lm, s, steps) {
  const o = lm.options, dec = decodingOf(ss, s), V = lm.vocab.size, triggers = new Set(lm.vocab.triggers);
  let generation, inspect = null;
  try {
    generation = generationData(lm, s, dec);
    inspect = inspectOf(lm, s.prompt + generation.text, s.layer, triggers);
  } catch (e) {
    if (typeof e?.code !== 'string' || e.name === 'SoftscopeTrapError') throw e;
    generation = { prompt: s.prompt, text: '', error: e.message, steps: [] };
  }
  const k = ss.kernel(o.normalizer, 'normalizer');
  const normParams = Object.fromEntries((k?.params ?? []).map((p) => [p.name, fin(o.normalizerParams?.[p.name] ?? p.default)]));
  const arena = lm.model.config.trainNormParams ? lm.model.params() : null;
  const t = arena && lm.model.tensors().find((x) => x.kind === 'normalizer' && x.layer === 0);
  if (t) k.params.filter((p) => p.type === 'float').forEach((p, j) => { normParams[p.name] = fin(arena[t.offset + j]); });
  const empty = () => ({ step: [], seconds: [], loss: [] });
  return {
    corpus: o.corpus, vocab: V, bos: lm.usesBos, context: o.context, steps, batch: o.batch, every: 1, valEvery: 1,
    positions: o.positions, lengthNs: [], lengthNote: null, unigram: null, uniform: fin(Math.log(V - 1)), trainTokens: null, validationTokens: null,
    bits: [], quantizers: [], decoding: dec, prompt: s.prompt, genSeed: s.genSeed, example: [],
    phase: 'done', progress: 1, sel: 0, layer: inspect?.layer ?? s.layer, head: s.head, genStep: s.genStep,
    runs: [{ name: o.normalizer, normParams, step: steps, diverged: null, error: null, seconds: null, tokens: null, tokensPerSecond: null,
      paramCount: lm.model.paramCount, curve: empty(), val: empty(), valLoss: null, valBits: null, lengths: [], inspect, generation,
      floatLoss: null, quant: [] }],
  };
}

// The steps a model file was trained for (its header's; loadLanguageModel has checked the file).
function savedSteps(bytes) {
  try {
    const n = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(8, true);
    const steps = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + n))).steps;
    return Number.isInteger(steps) ? steps : null;
  } catch {
    return null;
  }
}

/**
 * A model file as a stepper: { step, data, update, info, save, stop }. bytes: the file (an Error when it is not
 * one); state: the display fields it generates for (update takes any state: the model's own options are its
 * training). info(): { options (the model's, for the page's state), steps }.
 */
export function openModel(ss, state, { bytes } = {}) {
  const lm = loadLanguageModel(ss, bytes);
  const steps = savedSteps(bytes) ?? lm.steps;
  let cur = state, made = null, data = null, stopped = false;
  const key = (s) => `${generationKey(s)}|${s.layer}`;
  try {
    data = modelData(ss, lm, cur, steps);
    made = key(cur);
  } catch (e) {
    lm.free();
    throw e;
  }
  // the generation and inspection again when a display field moved since they were made (on data(): cheap)
  const fresh = () => {
    if (!stopped && made !== key(cur)) {
      data = modelData(ss, lm, cur, steps);
      made = key(cur);
    }
    return data;
  };
  return {
    step: () => false, // (nothing to train)
    data: () => ({ ...fresh(), sel: 0, head: cur.head, genStep: cur.genStep }),
    // any state: the model's training is its own (the page's state takes the model's shape); its display fields count
    update(t) {
      cur = t;
      return true;
    },
    info() {
      const { textChars: _t, ...options } = lm.options;
      return { options: JSON.parse(JSON.stringify(options)), steps };
    },
    save: () => lm.save(),
    stop() {
      if (stopped) return;
      stopped = true;
      lm.free();
    },
  };
}
