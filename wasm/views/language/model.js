// The Language view's numbers: a tiny GPT per normalizer (analysis/language.js
// createLanguageModel: the model, its training step, validation, generation
// and inspection are C's), trained side by side on the same batches (every
// run has the state's seed, so its batches are the others'), as a stepper
// (views/stepper.js). start(ss, state, { text }) — the user's text for corpus
// 'text' is passed beside the state, never in it. The phases, in order:
//   train     every run SLICE steps in turn (round robin) until each has run
//             `steps` or diverged (loss NaN/Inf: it stops, marked with its
//             step; the others go on); a curve point per `every` steps (the
//             window's mean training loss), a validation point (VAL_WINDOWS
//             windows) per `valEvery` steps and at step 0
//   evaluate  validation loss and bits (EVAL_WINDOWS windows), and the loss at
//             each position of windows of n = context, 2x and 4x the context
//             (length generalisation; learned positions have no rows past the
//             context: only n = context, lengthNote says so)
//   inspect   one validation window through the model: head and residual
//             measures of every layer, the attention maps of layer `layer`
//   generate  `length` tokens after `prompt` through the decoding stages `on`
//             (their values `stages`), seeded by genSeed, 5 candidates a step
//   quantize  (when quantizers are given) the validation loss (QUANT_WINDOWS
//             windows) with the weights quantized, per quantizer and bits
//   done
// Generation comes before quantisation: the text shows before the slowest
// phase. A new prompt, length, stage, genSeed or layer (update()) redoes the
// generation or the inspection of the trained models; sel, head and genStep
// only choose what the figure shows.
//
// data(): plain numbers, JSON-safe (null for what is not a finite number), of
// the shape data-shape.js declares (its keys, types and largest lengths).
// Measures: bosMass is the mean attention weight on BOS of the queries at
// positions >= 1; bosMassTrigger / bosMassOther split it by the query's token
// (Bigram-Backcopy: after a trigger the head must copy, "active"; elsewhere a
// weight on BOS is a no-op, "dormant"); a head is a sink when bosMassOther
// (bosMass on text) > SINK_THRESHOLD (0.3).
import { createLanguageModel, SINK_THRESHOLD } from '../../analysis/language.js';
import { quantizedAccuracy, ptqBits } from '../../analysis/ptq.js';
import { decodeStages, stageParam } from '../../analysis/decoding.js';
import { kernelParams } from '../../analysis/params.js';
import { fmt } from '../../figures/format.js';
import { optimizerDefaults, generationKey, schema } from './schema.js';
import { runKey } from '../../state/run-key.js';
import { finish } from '../stepper.js';

/** Steps a run trains before the next takes its turn. */
export const SLICE = 10;
/** The curves keep at most about this many points. */
export const CURVE_POINTS = 300;
/** Validation points along the training (and one at step 0). */
export const VAL_POINTS = 20;
/** Windows of a validation point, of the final validation, of a quantized validation. */
export const VAL_WINDOWS = 16, EVAL_WINDOWS = 64, QUANT_WINDOWS = 32;
/** The longest window whose attention maps the data keeps (the first MAP_MAX queries and keys: causal attention of the prefix). */
export const MAP_MAX = 128;
// a single step's most units (a slice of every run, when they are many or slow)
const STEP_UNITS = 400;
/** Bit widths of the quantisation panel. */
export const BITS = [2, 3, 4, 8];
/** Length generalisation: windows of these multiples of the context. */
export const LENGTH_FACTORS = [1, 2, 4];
export { SINK_THRESHOLD };

/** v when a finite number, else null (the data's numbers). */
export const fin = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const r4 = (v) => (Number.isFinite(v) ? Math.round(v * 1e4) / 1e4 : null);
const clock = () => performance.now();
const selIndex = (s) => Math.max(0, s.sel === null ? 0 : s.normalizers.indexOf(s.sel));
// An Error of a run's own (a normalizer the model rejects, a text too short for a length): it stops that part only.
const isOwn = (e) => e?.name !== 'SoftscopeTrapError' && typeof e?.code === 'string' && e.code.startsWith('SS_');

/** createLanguageModel's options for a state and one normalizer (text: the user's text, corpus 'text'). */
export function languageOptions(ss, s, name, text) {
  const k = ss.kernel(name, 'normalizer'), ok = ss.kernel(s.optimizer, 'optimizer');
  return {
    corpus: s.corpus, ...(s.corpus === 'text' ? { text } : {}), values: s.values, keys: s.keys,
    d: s.d, heads: s.heads, layers: s.layers, context: s.context, positions: s.positions, norm: s.norm, tied: s.tied, mlp: s.mlp,
    normalizer: name, normalizerParams: kernelParams(k, s.normParams, { scoped: true }),
    trainNormParams: !!s.trainNorm && k.has_param_backward && k.params.some((p) => p.type === 'float'),
    optimizer: s.optimizer, optimizerParams: kernelParams(ok, s.params, { scoped: true, defaults: optimizerDefaults(ok) }),
    schedule: s.schedule, steps: s.steps, warmup: Math.min(s.warmup, s.steps), batch: s.batch, seed: s.seed,
  };
}

/** The decoding as it runs: the stages on (registry order) and each stage's value (the state's, else its default). */
export function decodingOf(ss, s) {
  const values = {};
  for (const k of decodeStages(ss)) {
    const p = stageParam(k);
    if (p) values[k.name] = Number.isFinite(s.stages?.[k.name]) ? s.stages[k.name] : p.default;
  }
  return { on: [...s.on], values };
}

// The normalizer's parameters as the model holds them (trained ones: layer 0's).
function normParamsOf(ss, r) {
  const k = ss.kernel(r.name, 'normalizer');
  const out = Object.fromEntries(k.params.map((p) => [p.name, fin(r.options.normalizerParams?.[p.name] ?? p.default)]));
  if (r.lm.model.config.trainNormParams) {
    const arena = r.lm.model.params(), floats = k.params.filter((p) => p.type === 'float');
    const t = r.lm.model.tensors().find((x) => x.kind === 'normalizer' && x.layer === 0);
    if (t) floats.forEach((p, j) => { out[p.name] = fin(arena[t.offset + j]); });
  }
  return out;
}

// Entropy (nats) of the tokens' frequencies, BOS left out.
function unigramEntropy(tokens, bos) {
  const counts = new Map();
  let total = 0;
  for (const t of tokens) if (t !== bos) { counts.set(t, (counts.get(t) ?? 0) + 1); total++; }
  let h = 0;
  for (const c of counts.values()) h -= (c / total) * Math.log(c / total);
  return total ? h : null;
}

/**
 * The runs as a stepper: { step(budgetMs), data(), update(state), save(name?), stop() }.
 * Models are made here (an Error naming the option when one is out of range, e.g. options.text) and freed by stop().
 */
export function start(ss, s, { text } = {}) {
  let cur = s;
  const runs = [];
  try {
    for (const name of s.normalizers) {
      const options = languageOptions(ss, s, name, text);
      const lm = createLanguageModel(ss, options);
      runs.push({ name, options, lm, step: 0, diverged: null, error: null, seconds: 0,
        curve: { step: [], seconds: [], loss: [] }, win: { n: 0, loss: 0 }, val: { step: [], seconds: [], loss: [] },
        valLoss: null, valBits: null, lengths: [], inspect: null, insp: null, generation: null, genKey: null,
        floatLoss: null, quant: [], normParams: null, paramCount: lm.model.paramCount });
      const r = runs[runs.length - 1];
      r.given = normParamsOf(ss, r);
    }
  } catch (e) {
    for (const r of runs) r.lm.free();
    throw e;
  }
  const first = runs[0].lm;
  const C = s.context, V = first.vocab.size, bos = first.vocab.bos, triggers = new Set(first.vocab.triggers);
  const every = Math.max(1, Math.ceil(s.steps / CURVE_POINTS));
  const valEvery = Math.max(every, Math.ceil(s.steps / VAL_POINTS));
  const learned = s.positions === 'learned';
  const lengthNs = learned ? [C] : LENGTH_FACTORS.map((f) => f * C);
  const evalSeed = s.seed + 1;
  const quantPlan = s.quantizers.flatMap((q) => ptqBits(ss, q).filter((b) => BITS.includes(b)).map((b) => ({ quantizer: q, bits: b })));
  // the data's reference lines and example, from the first model's validation windows
  const sample = first.model.testTokens({ n: C, examples: Math.min(64, Math.max(4, Math.ceil(4096 / C))), seed: evalSeed });
  const unigram = unigramEntropy(sample.tokens, bos);
  const symbolsOf = (ids) => Array.from(ids, (t) => (t === bos ? '' : first.vocab.symbols[t] ?? ''));
  const example = Array.from({ length: Math.min(3, sample.examples) }, (_, i) => {
    const ids = sample.tokens.subarray(i * C, i * C + Math.min(C, 48));
    return { texts: symbolsOf(ids), trigger: Array.from(ids, (t) => triggers.has(t)) };
  });

  // work in token-forwards (a training step about 3 forwards of batch x context)
  const trainCost = 3 * s.batch * C, valCost = VAL_WINDOWS * C;
  const evalCost = EVAL_WINDOWS * C * lengthNs.length, inspCost = C, genCost = () => cur.length * C;
  const quantCost = quantPlan.length * QUANT_WINDOWS * C * 1.5 + (quantPlan.length ? QUANT_WINDOWS * C : 0);
  const perRun = () => s.steps * trainCost + Math.ceil(s.steps / valEvery) * valCost + evalCost + inspCost + genCost() + quantCost;
  let done = 0, phase = 'train';
  const live = (r) => r.diverged === null && r.error === null;
  const skip = (r) => { done += Math.max(0, (s.steps - r.step) * trainCost) + evalCost + inspCost + genCost() + quantCost; };

  function guarded(r, unit) {
    try {
      unit();
    } catch (e) {
      if (!isOwn(e)) throw e;
      r.error = e.message;
      skip(r);
    }
  }

  function flush(r) {
    if (!r.win.n) return;
    r.curve.step.push(r.step);
    r.curve.seconds.push(r.seconds);
    r.curve.loss.push(fin(r.win.loss / r.win.n));
    r.win = { n: 0, loss: 0 };
  }

  function validatePoint(r) {
    const v = r.lm.validate({ windows: VAL_WINDOWS, seed: evalSeed });
    r.val.step.push(r.step);
    r.val.seconds.push(r.seconds);
    r.val.loss.push(fin(v.loss));
    done += valCost;
  }

  function train(r, k) {
    for (let i = 0; i < k && r.step < s.steps; i++) {
      const t0 = clock();
      const out = r.lm.step(1);
      r.seconds += (clock() - t0) / 1000;
      if (out.diverged) {
        flush(r);
        r.diverged = out.step;
        skip(r);
        return;
      }
      r.step = out.step;
      r.win.n += 1;
      r.win.loss += out.loss;
      done += trainCost;
      if (r.win.n === every || r.step === s.steps) flush(r);
      if (r.step % valEvery === 0 || r.step === s.steps) validatePoint(r);
    }
  }

  function evaluate(r) {
    const v = r.lm.validate({ windows: EVAL_WINDOWS, seed: evalSeed });
    r.valLoss = fin(v.loss);
    r.valBits = fin(v.bits);
    r.lengths.push({ n: C, loss: fin(v.loss), positionLoss: Array.from(v.positionLoss, fin), error: null });
    done += EVAL_WINDOWS * C;
  }

  function evaluateAt(r, n) {
    try {
      const e = r.lm.model.evaluate({ n, examples: Math.max(2, Math.round((EVAL_WINDOWS * C) / n)), seed: evalSeed });
      r.lengths.push({ n, loss: fin(e.loss), positionLoss: Array.from(e.positionLoss ?? [], fin), error: null });
    } catch (e) {
      if (!isOwn(e)) throw e;
      r.lengths.push({ n, loss: null, positionLoss: [], error: e.message }); // (a text whose validation part is shorter than n)
    }
    done += EVAL_WINDOWS * C;
  }

  function inspect(r) {
    const layer = cur.layer;
    r.inspect = inspectionData(r.lm.inspect({ seed: evalSeed }), layer, triggers);
    r.insp = layer;
  }

  function generate(r) {
    const key = generationKey(cur), dec = decodingOf(ss, cur);
    let g;
    try {
      g = generationData(r.lm, cur, dec);
    } catch (e) {
      if (!isOwn(e)) throw e;
      g = { prompt: cur.prompt, text: '', error: e.message, steps: [] };
    }
    r.generation = g;
    r.genKey = key;
  }

  function quantize(r, q) {
    const test = { n: C, examples: QUANT_WINDOWS, seed: evalSeed };
    if (r.floatLoss === null) { r.floatLoss = fin(r.lm.model.evaluate(test).loss); done += QUANT_WINDOWS * C; }
    const e = quantizedAccuracy(ss, r.lm.model, { quantizer: q.quantizer, bits: q.bits }, test);
    r.quant.push({ quantizer: q.quantizer, bits: q.bits, loss: fin(e.loss) });
    done += QUANT_WINDOWS * C * 1.5;
  }

  function* work() {
    for (const r of runs) { guarded(r, () => validatePoint(r)); yield; }
    const training = (r) => live(r) && r.step < s.steps;
    while (runs.some(training)) {
      for (const r of runs) {
        if (!training(r)) continue;
        guarded(r, () => train(r, SLICE));
        yield;
      }
    }
    for (const r of runs) r.normParams = normParamsOf(ss, r);
    phase = 'evaluate';
    for (const r of runs) {
      if (!live(r)) continue;
      guarded(r, () => evaluate(r));
      yield;
      for (const n of lengthNs.slice(1)) {
        if (!live(r)) break;
        guarded(r, () => evaluateAt(r, n));
        yield;
      }
    }
    phase = 'inspect';
    for (const r of runs) {
      if (!live(r)) continue;
      guarded(r, () => inspect(r));
      done += inspCost;
      yield;
    }
    phase = 'generate';
    for (const r of runs) {
      if (!live(r)) continue;
      guarded(r, () => generate(r));
      done += genCost();
      yield;
    }
    if (quantPlan.length) phase = 'quantize';
    for (const r of runs) {
      for (const q of quantPlan) {
        if (!live(r)) break;
        guarded(r, () => quantize(r, q));
        yield;
      }
    }
    phase = 'done';
  }

  // a display key changed after its part was done: that part again (one unit), or null
  function stale() {
    for (const r of runs) {
      if (!live(r)) continue;
      if (r.inspect && r.insp !== cur.layer) return () => guarded(r, () => inspect(r));
      if (r.generation && r.genKey !== generationKey(cur)) return () => guarded(r, () => generate(r));
    }
    return null;
  }

  const gen = work();
  let over = false, stopped = false;
  return {
    step(budgetMs = Infinity) {
      if (stopped) return false;
      const t0 = clock();
      do {
        const redo = stale();
        if (redo) { redo(); continue; }
        if (over) return false;
        if (gen.next().done) over = true;
      } while (clock() - t0 < budgetMs);
      return !over || stale() !== null;
    },
    data() {
      const total = runs.length * perRun();
      return {
        corpus: s.corpus, vocab: V, bos: first.usesBos, context: C, steps: s.steps, batch: s.batch, every, valEvery,
        positions: s.positions, lengthNs: [...lengthNs],
        lengthNote: learned ? 'learned positions have no rows past the context: the loss is measured up to the context only' : null,
        unigram: fin(unigram), uniform: fin(Math.log(V - 1)),
        trainTokens: fin(first.trainTokens), validationTokens: fin(first.validationTokens),
        bits: [...BITS], quantizers: [...s.quantizers], decoding: decodingOf(ss, cur), prompt: cur.prompt, genSeed: cur.genSeed,
        example: example.map((x) => ({ texts: [...x.texts], trigger: [...x.trigger] })),
        phase, progress: over ? 1 : Math.min(1, done / total),
        sel: selIndex(cur), layer: cur.layer, head: cur.head, genStep: cur.genStep,
        runs: runs.map((r) => ({
          name: r.name, normParams: { ...(r.normParams ?? r.given) }, step: r.step, diverged: r.diverged, error: r.error,
          seconds: fin(r.seconds), tokens: r.step * s.batch * C, tokensPerSecond: r.seconds > 0 ? fin((r.step * s.batch * C) / r.seconds) : null,
          paramCount: r.paramCount,
          curve: { step: [...r.curve.step], seconds: [...r.curve.seconds], loss: [...r.curve.loss] },
          val: { step: [...r.val.step], seconds: [...r.val.seconds], loss: [...r.val.loss] },
          valLoss: r.valLoss, valBits: r.valBits,
          lengths: r.lengths.map((x) => ({ ...x, positionLoss: [...x.positionLoss] })),
          inspect: r.inspect && { ...r.inspect, texts: [...r.inspect.texts], trigger: [...r.inspect.trigger], maps: [...r.inspect.maps],
            heads: r.inspect.heads.map((h) => ({ ...h })), residual: r.inspect.residual.map((q) => ({ ...q })) },
          generation: r.generation && { ...r.generation, steps: r.generation.steps },
          floatLoss: r.floatLoss, quant: r.quant.map((q) => ({ ...q })),
        })),
      };
    },
    /** One step of the Step button: every live run trains one more slice (SLICE steps), or, past training, the
     *  next unit of work; whether work remains. */
    advance() {
      const training = phase === 'train' && runs.some((r) => live(r) && r.step < s.steps);
      const before = runs.map((r) => r.step);
      for (let k = 0; k < STEP_UNITS; k++) {
        const more = this.step(0);
        if (!more || !training || phase !== 'train') return more;
        if (runs.every((r, i) => !live(r) || r.step > before[i] || r.step >= s.steps)) return more;
      }
      return !over;
    },
    update(t) {
      if (runKey(schema, t) !== runKey(schema, cur)) return false;
      cur = t;
      return true;
    },
    /** The model file (lm.save()) of run `name` (default: the selected run). */
    save(name) {
      if (stopped) throw new Error('language: the run was stopped; its models are freed');
      const r = name === undefined ? runs[selIndex(cur)] : runs.find((x) => x.name === name);
      if (!r) throw new Error(`language: no run of ${name}`);
      return r.lm.save();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      for (const r of runs) r.lm.free();
    },
  };
}

/** Headless: the runs to their end (text: the user's text for corpus 'text'). */
/** The view's generation of language model lm for state s (prompt, length, genSeed) through the decoding dec
 *  (decodingOf): its text and each step's top candidates, their logits and stage values finite or null. */
export function generationData(lm, s, dec) {
  const out = lm.generate({ prompt: s.prompt, length: s.length, on: dec.on, stages: dec.values, seed: s.genSeed, top: 5 });
  return { prompt: s.prompt, text: out.text, error: null, steps: out.steps.map((st) => ({ token: st.token, text: st.text, kept: st.kept,
    top: st.top.map((c) => ({ token: c.token, text: c.text, logit: fin(c.logit), base: fin(c.base),
      stages: Object.fromEntries(Object.entries(c.stages).map(([k, v]) => [k, fin(v)])), final: fin(c.final) })) })) };
}

/** The view's inspection data of x (lm.inspect) at layer: the maps of the first MAP_MAX queries and keys, rounded to
 *  4 decimals, each head's BOS measures and the residual stream's, the trigger tokens among the texts marked. */
export function inspectionData(x, layer, triggers) {
  const m = Math.min(x.n, MAP_MAX), H = x.heads, nn = x.n * x.n;
  const maps = new Array(H * m * m);
  for (let h = 0; h < H; h++) {
    const at = (layer * H + h) * nn;
    for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) maps[(h * m + i) * m + j] = r4(x.maps[at + i * x.n + j]);
  }
  const heads = x.headStats.map((h) => ({ layer: h.layer, head: h.head, bosMass: fin(h.bosMass), bosMassTrigger: fin(h.bosMassTrigger),
    bosMassOther: fin(h.bosMassOther), sink: !!h.sink, bosValueNorm: fin(h.bosValueNorm), valueNorm: fin(h.valueNorm) }));
  return { layer, n: m, texts: x.texts.slice(0, m), trigger: Array.from(x.tokens.subarray(0, m), (t) => triggers.has(t)), maps, heads,
    residual: x.residual.map((q) => ({ layer: q.layer, bosNorm: fin(q.bosNorm), meanNorm: fin(q.meanNorm), kurtosis: fin(q.kurtosis), maxMedian: fin(q.maxMedian) })),
    sinks: heads.filter((h) => h.sink).length };
}

export const compute = (ss, s, options) => finish(start(ss, s, options));

const cell = (v) => (v === null || v === undefined ? '' : v);

/** CSV rows (kind: curve | val | position | quant | head). */
export function table(d) {
  const columns = ['kind', 'normalizer', 'step', 'seconds', 'n', 'position', 'quantizer', 'bits', 'layer', 'head', 'loss', 'bosMass', 'bosMassTrigger', 'bosMassOther', 'sink'];
  const rows = [];
  const row = (o) => rows.push(columns.map((c) => cell(o[c])));
  for (const r of d.runs) {
    r.curve.step.forEach((step, i) => row({ kind: 'curve', normalizer: r.name, step, seconds: r.curve.seconds[i], loss: r.curve.loss[i] }));
    r.val.step.forEach((step, i) => row({ kind: 'val', normalizer: r.name, step, seconds: r.val.seconds[i], loss: r.val.loss[i] }));
    for (const x of r.lengths) x.positionLoss.forEach((loss, i) => row({ kind: 'position', normalizer: r.name, step: r.step, n: x.n, position: i, loss }));
    for (const q of r.quant) row({ kind: 'quant', normalizer: r.name, step: r.step, quantizer: q.quantizer, bits: q.bits, loss: q.loss });
    for (const h of r.inspect?.heads ?? []) row({ kind: 'head', normalizer: r.name, step: r.step, layer: h.layer, head: h.head, ...h, sink: h.sink ? 1 : 0 });
  }
  return { columns, rows };
}

/** One sentence: the validation loss and the sink heads per run. */
export function describe(d) {
  const parts = d.runs.map((r) => {
    if (r.error) return `${r.name} stopped: ${r.error}`;
    if (r.diverged !== null) return `${r.name} diverged at step ${r.diverged}`;
    if (r.valLoss === null) return `${r.name} at step ${r.step}`;
    return `${r.name} ${fmt(r.valLoss, 3)} nats (${fmt(r.valBits, 3)} bits) a token${r.inspect ? `, ${r.inspect.sinks} sink head${r.inspect.sinks === 1 ? '' : 's'}` : ''}`;
  });
  return `a language model on ${d.corpus}, ${d.steps} steps (${d.phase}): validation ${parts.join('; ')}`;
}
