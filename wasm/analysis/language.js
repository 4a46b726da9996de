// A language model in softscope (issue 35): a corpus as tokens, the model of
// core/src/model trained on it (createModel with a text, or the
// bigram_backcopy task), validation loss in nats and bits, generation
// through the registry's decoding stages (analysis/decoding.js, the Sampling
// view's pipeline), inspection of sinks and activations, and a model file.
// Everything numeric is computed in C; this file turns text into tokens and
// back, chooses windows, and reads the model's outputs into measures.
//
//   corpus 'grammar'          ss_grammar_text (a seeded English-like text)
//   corpus 'text'             the user's text
//   corpus 'bigram_backcopy'  Guo et al. 2024 (arXiv 2410.13835): tokens a..,
//                             triggers first; a copy after each trigger
//
// Tokens of a text are its characters (its alphabet, sorted by code point),
// or past LANGUAGE_LIMITS.symbols distinct characters its UTF-8 bytes; BOS
// is the last id. A text corpus is split at 1 - validation: the training
// windows come from the first part, the validation windows from the rest.
import { SoftscopeError, SoftscopeTypeError, STATUS, describe } from '../api/errors.js';
import { createModel, grammarText } from '../api/model.js';
// the API's options reader: a TypeError for a non-object, an Error naming an unknown key, each key read once
import { options as checkOptions } from '../api/args.js';
import { decodeStages, runPipeline } from './decoding.js';

export const LANGUAGE_LIMITS = Object.freeze({ textChars: 1 << 24, symbols: 255, fileBytes: 64 << 20, generate: 4096 });
/** A head is a sink when its queries (other than after a trigger) put more than this on BOS (Gu et al. 2025's 0.3). */
export const SINK_THRESHOLD = 0.3;
const MAGIC = 'SSLM', FILE_VERSION = 1, HEADER_MAX = 1 << 20;
// Bigram-Backcopy's tokens as one character each (up to 64 tokens; past that <id>)
const BB_SYMBOLS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+/';

const DEFAULTS = Object.freeze({
  corpus: 'grammar', corpusChars: 200000, values: 64, keys: 3, bos: true, validation: 0.1,
  d: 128, heads: 4, layers: 4, context: 64, mlp: true, positions: 'learned', norm: 'layernorm', tied: true,
  normalizer: 'softmax', trainNormParams: false, optimizer: 'adamw', schedule: 'cosine', steps: 2000, warmup: 100,
  minFactor: 0.1, batch: 12, seed: 0,
});
const KEYS = [...Object.keys(DEFAULTS), 'text', 'normalizerParams', 'optimizerParams'];
// nanoGPT's baby GPT: AdamW lr 1e-3, beta2 0.99, weight decay 0.1 (the optimizer's own names; others keep defaults)
const OPT_DEFAULTS = { lr: 1e-3, beta2: 0.99, weight_decay: 0.1 };

const fail = (where, arg, text, status = STATUS.SS_ERR_PARAM_RANGE) =>
  new SoftscopeError(`${where}: ${arg} ${text}`, status, { argument: arg });

// ---- vocabulary ----

/** The vocabulary of a text: its characters sorted by code point, or its bytes past LANGUAGE_LIMITS.symbols. */
export function textVocab(text) {
  const chars = [...new Set(text)].sort((a, b) => a.codePointAt(0) - b.codePointAt(0));
  if (chars.length <= LANGUAGE_LIMITS.symbols) return makeVocab([...chars, ''], false, []);
  return makeVocab([...Array.from({ length: 256 }, (_, i) => String.fromCharCode(i)), ''], true, []);
}

function makeVocab(symbols, bytes, triggers) {
  return Object.freeze({ symbols: Object.freeze(symbols), size: symbols.length, bos: symbols.length - 1, bytes, triggers: Object.freeze(triggers) });
}

function bigramVocab(values, keys) {
  const sym = (i) => (values <= BB_SYMBOLS.length ? BB_SYMBOLS[i] : `<${i}>`);
  return makeVocab([...Array.from({ length: values }, (_, i) => sym(i)), ''], false, Array.from({ length: keys }, (_, i) => i));
}

/** text as token ids of vocab; a character outside it throws naming `argument`. */
export function encode(vocab, text, argument = 'text', where = 'softscope.language') {
  if (typeof text !== 'string') throw new SoftscopeTypeError(`${where}: ${argument} must be a string (got ${describe(text)})`, { argument });
  if (vocab.bytes) return Uint32Array.from(new TextEncoder().encode(text));
  const index = new Map(vocab.symbols.slice(0, vocab.bos).map((c, i) => [c, i]));
  const chars = Array.from(text);
  const out = new Uint32Array(chars.length);
  for (let i = 0; i < chars.length; i++) {
    const id = index.get(chars[i]);
    if (id === undefined)
      throw fail(where, argument, `holds ${JSON.stringify(chars[i])} (character ${i}), which is not in the model's vocabulary of ${vocab.bos} symbols`, STATUS.SS_ERR_DOMAIN);
    out[i] = id;
  }
  return out;
}

/** token ids as text (BOS: nothing; bytes: UTF-8 decoded, invalid sequences as U+FFFD). */
export function decode(vocab, tokens) {
  const ids = Array.from(tokens).filter((t) => t !== vocab.bos && t < vocab.size);
  if (vocab.bytes) return new TextDecoder().decode(Uint8Array.from(ids));
  return ids.map((t) => vocab.symbols[t]).join('');
}

// ---- options ----

function resolve(given, where, needText = true) {
  const o = checkOptions(given, where, KEYS);
  const r = { ...DEFAULTS, ...Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) };
  if (!['grammar', 'bigram_backcopy', 'text'].includes(r.corpus)) throw fail(where, 'options.corpus', `= ${describe(r.corpus)} must be grammar, bigram_backcopy or text`);
  const int = (k, lo, hi) => {
    if (!Number.isInteger(r[k]) || r[k] < lo || r[k] > hi) throw fail(where, `options.${k}`, `= ${describe(r[k])} must be an integer in [${lo}, ${hi}]`);
  };
  int('corpusChars', 1000, LANGUAGE_LIMITS.textChars);
  int('context', 1, 1024);
  if (typeof r.bos !== 'boolean') throw fail(where, 'options.bos', `= ${describe(r.bos)} must be true or false`);
  if (typeof r.validation !== 'number' || !(r.validation >= 0 && r.validation <= 0.5)) throw fail(where, 'options.validation', `= ${describe(r.validation)} must be a number in [0, 0.5]`);
  if (r.corpus === 'text' && needText) {
    if (typeof r.text !== 'string') throw new SoftscopeTypeError(`${where}: options.text must be a string with corpus 'text' (got ${describe(r.text)})`, { argument: 'options.text' });
    if (r.text.length > LANGUAGE_LIMITS.textChars) throw fail(where, 'options.text', `has ${r.text.length} characters > ${LANGUAGE_LIMITS.textChars}`, STATUS.SS_ERR_TOO_LARGE);
  } else if (r.text !== undefined && r.corpus !== 'text') {
    throw fail(where, 'options.text', `is only read with corpus 'text' (corpus is ${r.corpus})`);
  }
  return r;
}

// createModel's options for r (the corpus's tokens in `text`, or the task)
function modelOptions(ss, r, text) {
  const k = ss.kernel(r.optimizer, 'optimizer');
  const names = new Set(k.params.map((p) => p.name));
  const opt = Object.fromEntries(Object.entries(OPT_DEFAULTS).filter(([n]) => names.has(n)));
  return {
    ...(text ? { text } : { task: 'bigram_backcopy', values: r.values, keys: r.keys }),
    d: r.d, heads: r.heads, layers: r.layers, mlp: r.mlp, positions: r.positions, maxN: r.context, causal: true,
    norm: r.norm, tied: r.tied, normalizer: r.normalizer, normalizerParams: r.normalizerParams, trainNormParams: r.trainNormParams,
    optimizer: r.optimizer, optimizerParams: { ...opt, ...(r.optimizerParams ?? {}) }, schedule: r.schedule, steps: r.steps,
    warmup: Math.min(r.warmup, r.steps), decay: 1, minFactor: r.minFactor, batch: r.batch, trainN: r.context, seed: r.seed,
  };
}

// ---- the model ----

class LanguageModel {
  #ss;
  #trainable;
  #decoder = null;

  constructor(ss, r, { text = null, vocab = null, trainable = true } = {}) {
    const where = 'softscope.createLanguageModel';
    this.#ss = ss;
    this.#trainable = trainable;
    let tokens = null;
    if (r.corpus === 'bigram_backcopy') {
      this.vocab = bigramVocab(r.values, r.keys);
    } else {
      const t = text ?? (r.corpus === 'grammar' ? grammarText(ss, r.corpusChars, r.seed) : r.text);
      this.vocab = vocab ?? textVocab(t);
      tokens = encode(this.vocab, t, 'options.text', where);
    }
    let textOpt = null;
    if (tokens) {
      const need = r.context + (r.bos ? 0 : 1);
      const cut = Math.max(need, Math.floor(tokens.length * (1 - r.validation)));
      const train = tokens.subarray(0, cut), validation = tokens.subarray(cut);
      if (train.length < need + 1)
        throw fail(where, 'options.text', `has ${tokens.length} tokens: a window of context ${r.context} needs at least ${need + 1} to train on`, STATUS.SS_ERR_EMPTY);
      textOpt = { tokens: train, validation: validation.length >= need ? validation : new Uint32Array(0), vocab: this.vocab.size, bos: r.bos ? this.vocab.bos : null };
      this.trainTokens = train.length;
      this.validationTokens = textOpt.validation.length;
    } else {
      this.trainTokens = Infinity;
      this.validationTokens = Infinity;
    }
    this.model = createModel(ss, modelOptions(ss, r, textOpt));
    const { text: _t, ...rest } = r;
    this.options = Object.freeze({ ...rest, normalizerParams: r.normalizerParams ?? {}, optimizerParams: r.optimizerParams ?? {},
      textChars: r.corpus === 'text' ? (text ?? r.text ?? '').length : r.corpus === 'grammar' ? r.corpusChars : 0 });
  }

  get ss() { return this.#ss; }
  get steps() { return this.model.steps; }
  get diverged() { return this.model.diverged; }
  get trainable() { return this.#trainable; }
  /** whether position 0 of a window is BOS (text corpora with bos, and Bigram-Backcopy) */
  get usesBos() { return this.options.corpus === 'bigram_backcopy' || this.options.bos; }

  step(k = 1) {
    if (!this.#trainable)
      throw fail('languageModel.step', 'this', 'was loaded from a file without its text: load it with options.text to train', STATUS.SS_ERR_UNSUPPORTED);
    return this.model.step(k);
  }

  validate(options = {}) {
    const where = 'languageModel.validate';
    const o = checkOptions(options, where, ['windows', 'seed']);
    const windows = o.windows ?? 64;
    if (!Number.isInteger(windows) || windows < 1 || windows > 4096) throw fail(where, 'options.windows', `= ${describe(windows)} must be an integer in [1, 4096]`);
    const e = this.model.evaluate({ n: this.options.context, examples: windows, seed: o.seed ?? this.options.seed + 1 });
    return { loss: e.loss, bits: e.loss / Math.LN2, positionLoss: e.positionLoss, windows, accuracy: e.accuracy };
  }

  encode(text, argument = 'text') { return encode(this.vocab, text, argument); }
  decode(tokens) { return decode(this.vocab, tokens); }

  // A window of at most `size` tokens on seq: BOS first when the model uses it, then the last tokens.
  #window(seq, size = this.options.context) {
    if (!this.usesBos) return seq.slice(Math.max(0, seq.length - size));
    return [this.vocab.bos, ...seq.slice(Math.max(0, seq.length - (size - 1)))];
  }

  // The next token's logits after seq's last token (already pushed), by the decoder's cache: while the window has
  // room, one more row; when it holds `context` tokens, the window shifts (llama.cpp's context shift): BOS (when the
  // model uses it) and the last half of the context are fed again, and the window grows from there. Each logits row is
  // forwardTokens' last row on the current window, bit for bit (ss_model_decode's test); the window is between half
  // the context and the context long once the text is longer than it.
  #next(seq, fresh) {
    const C = this.options.context, dec = (this.#decoder ??= this.model.decoder({ maxN: C }));
    if (!fresh && dec.position < C) return dec.feed(seq[seq.length - 1]);
    dec.reset();
    return dec.feed(this.#window(seq, fresh ? C : Math.ceil(C / 2)));
  }

  generate(options = {}) {
    const where = 'languageModel.generate', ss = this.#ss;
    const o = checkOptions(options, where, ['prompt', 'length', 'on', 'stages', 'seed', 'top']);
    const prompt = o.prompt ?? '';
    const length = o.length ?? 200, top = o.top ?? 5, seed = o.seed ?? 0;
    if (!Number.isInteger(length) || length < 1 || length > LANGUAGE_LIMITS.generate) throw fail(where, 'options.length', `= ${describe(length)} must be an integer in [1, ${LANGUAGE_LIMITS.generate}]`);
    if (!Number.isInteger(top) || top < 0 || top > 64) throw fail(where, 'options.top', `= ${describe(top)} must be an integer in [0, 64]`);
    if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 32 - 1) throw fail(where, 'options.seed', `= ${describe(seed)} must be an integer in [0, 2^32)`);
    const stageNames = decodeStages(ss).map((k) => k.name);
    const on = o.on ?? ['temperature'];
    if (!Array.isArray(on) || on.some((n) => !stageNames.includes(n))) throw fail(where, 'options.on', `= ${describe(on)} must list decoding stages of ${stageNames.join(', ')}`);
    const stages = o.stages ?? {};
    if (typeof stages !== 'object' || Array.isArray(stages) || Object.entries(stages).some(([k, v]) => !stageNames.includes(k) || typeof v !== 'number' || !Number.isFinite(v)))
      throw fail(where, 'options.stages', `= ${describe(stages)} must map decoding stages (${stageNames.join(', ')}) to finite numbers`);
    const seq = Array.from(encode(this.vocab, prompt, 'options.prompt', where));
    if (!this.usesBos && !seq.length) throw fail(where, 'options.prompt', 'must not be empty: the model was trained without BOS, so it needs a first character', STATUS.SS_ERR_EMPTY);
    const pipe = { on: stageNames.filter((n) => on.includes(n)), stages };
    const steps = [], drawn = [];
    let x = this.#next(seq, true);
    for (let t = 0; t < length; t++) {
      const r = runPipeline(ss, x, pipe, { keep: top > 0 });
      if (r.error) throw fail(where, 'options.stages', r.error);
      const bad = r.stages.find((s) => s.error);
      if (bad) throw fail(where, `options.stages.${bad.name}`, bad.error);
      const token = ss.categorical(r.final, { seed, stream: t, draws: 1 })[0];
      seq.push(token);
      drawn.push(token);
      steps.push({ token, text: this.#symbol(token), kept: r.kept, top: top ? this.#candidates(x, r, top, token) : [] });
      if (t + 1 < length) x = this.#next(seq, false);
    }
    const tokens = Uint32Array.from(drawn);
    return { prompt, text: decode(this.vocab, tokens), tokens, steps };
  }

  #symbol(t) { return t === this.vocab.bos ? '' : this.vocab.symbols[t]; }

  #candidates(x, r, top, token) {
    const order = Array.from(x.keys()).sort((a, b) => r.base[b] - r.base[a] || a - b);
    const ids = order.slice(0, top);
    if (!ids.includes(token)) ids.push(token);
    return ids.map((i) => ({
      token: i, text: this.#symbol(i), logit: x[i], base: r.base[i],
      stages: Object.fromEntries(r.stages.filter((s) => s.on && s.probs).map((s) => [s.name, s.probs[i]])),
      final: r.final[i],
    }));
  }

  inspect(options = {}) {
    const where = 'languageModel.inspect', ss = this.#ss;
    const o = checkOptions(options, where, ['text', 'seed']);
    const c = this.model.config, L = c.layers, H = c.heads, d = c.d, hd = d / H;
    let tokens;
    if (o.text !== undefined) {
      const ids = Array.from(encode(this.vocab, o.text, 'options.text', where));
      tokens = this.usesBos ? [this.vocab.bos, ...ids] : ids;
      if (!tokens.length) throw fail(where, 'options.text', 'must not be empty for a model trained without BOS', STATUS.SS_ERR_EMPTY);
      if (tokens.length > this.options.context * 4) throw fail(where, 'options.text', `has ${tokens.length} tokens > 4 contexts (${this.options.context * 4})`, STATUS.SS_ERR_TOO_LARGE);
    } else {
      tokens = Array.from(this.model.testTokens({ n: this.options.context, examples: 1, seed: o.seed ?? this.options.seed + 1 }).tokens);
    }
    const n = tokens.length;
    const f = this.model.forwardTokens(tokens, { maps: true, hidden: true, values: true });
    const trig = new Set(this.vocab.triggers);
    const headStats = [];
    for (let l = 0; l < L; l++)
      for (let h = 0; h < H; h++) {
        const at = (l * H + h) * n * n;
        let all = 0, tr = 0, ot = 0, na = 0, nt = 0, no = 0;
        for (let i = 1; i < n; i++) {
          const w = f.maps[at + i * n];
          all += w; na++;
          if (trig.has(tokens[i])) { tr += w; nt++; } else { ot += w; no++; }
        }
        const vn = (p) => { let s = 0; for (let j = 0; j < hd; j++) { const v = f.values[(l * n + p) * d + h * hd + j]; s += v * v; } return Math.sqrt(s); };
        let rest = 0;
        for (let p = 1; p < n; p++) rest += vn(p);
        const bosMass = na ? all / na : NaN;
        const other = trig.size ? (no ? ot / no : null) : bosMass;
        headStats.push({ layer: l, head: h, bosMass, bosMassTrigger: trig.size ? (nt ? tr / nt : null) : null, bosMassOther: trig.size ? other : null,
          sink: (other ?? 0) > SINK_THRESHOLD, bosValueNorm: vn(0), valueNorm: n > 1 ? rest / (n - 1) : NaN });
      }
    const residual = [];
    for (let l = 0; l <= L; l++) {
      const x = f.hidden.subarray(l * n * d, (l + 1) * n * d);
      const norm = (p) => { let s = 0; for (let j = 0; j < d; j++) s += x[p * d + j] ** 2; return Math.sqrt(s); };
      let rest = 0;
      for (let p = 1; p < n; p++) rest += norm(p);
      residual.push({ layer: l, bosNorm: norm(0), meanNorm: n > 1 ? rest / (n - 1) : NaN,
        kurtosis: ss.measure('kurtosis', x), maxMedian: ss.measure('max_median_ratio', x) });
    }
    return { tokens: Uint32Array.from(tokens), texts: tokens.map((t) => this.#symbol(t)), n, layers: L, heads: H, maps: f.maps, headStats, residual, bos: this.usesBos };
  }

  save() {
    const m = this.model;
    const header = JSON.stringify({ format: 'softscope-language-model', version: FILE_VERSION, options: this.options,
      vocab: { symbols: this.vocab.symbols, bytes: this.vocab.bytes, triggers: this.vocab.triggers }, steps: m.steps, paramCount: m.paramCount });
    const hb = new TextEncoder().encode(header);
    const pad = (4 - ((12 + hb.length) % 4)) % 4;
    const out = new Uint8Array(12 + hb.length + pad + m.paramCount * 4);
    out.set(new TextEncoder().encode(MAGIC), 0);
    const dv = new DataView(out.buffer);
    dv.setUint32(4, FILE_VERSION, true);
    dv.setUint32(8, hb.length, true);
    out.set(hb, 12);
    const p = m.params(), at = 12 + hb.length + pad;
    for (let i = 0; i < p.length; i++) dv.setFloat32(at + i * 4, p[i], true);
    return out;
  }

  free() {
    this.#decoder?.free();
    this.model.free();
  }
}

/** A language model on a corpus (see index.d.ts: LanguageModelOptions). */
export function createLanguageModel(ss, options) {
  return new LanguageModel(ss, resolve(options, 'softscope.createLanguageModel'));
}

/** A model from save()'s bytes; every field is checked and an Error names `file`. */
export function loadLanguageModel(ss, bytes, options = {}) {
  const where = 'softscope.loadLanguageModel';
  const bad = (text, status = STATUS.SS_ERR_PARAM_RANGE) => fail(where, 'file', text, status);
  if (!(bytes instanceof Uint8Array)) throw new SoftscopeTypeError(`${where}: file must be a Uint8Array (got ${describe(bytes)})`, { argument: 'file' });
  const o = checkOptions(options, where, ['text']);
  if (bytes.length < 12) throw bad(`is ${bytes.length} bytes: too short for a model file`, STATUS.SS_ERR_LENGTH);
  if (bytes.length > LANGUAGE_LIMITS.fileBytes) throw bad(`is ${bytes.length} bytes > ${LANGUAGE_LIMITS.fileBytes}`, STATUS.SS_ERR_TOO_LARGE);
  if (new TextDecoder().decode(bytes.subarray(0, 4)) !== MAGIC) throw bad('is not a softscope language-model file (no SSLM at its start)');
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = dv.getUint32(4, true), hlen = dv.getUint32(8, true);
  if (version !== FILE_VERSION) throw bad(`has format version ${version}; this softscope reads ${FILE_VERSION}`);
  if (hlen > HEADER_MAX || 12 + hlen > bytes.length) throw bad(`declares a header of ${hlen} bytes; the file has ${bytes.length - 12} after its first 12`, STATUS.SS_ERR_LENGTH);
  let h;
  try {
    h = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(12, 12 + hlen)));
  } catch (e) {
    throw bad(`has a header that is not JSON (${e.message})`);
  }
  const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isObj(h) || h.format !== 'softscope-language-model' || !isObj(h.options) || !isObj(h.vocab)) throw bad('has a header without format, options and vocab');
  const { textChars: _c, ...saved } = h.options;
  let r;
  try {
    r = resolve(saved, where, false);
  } catch (e) {
    throw bad(`holds options softscope rejects: ${e.message}`);
  }
  const v = h.vocab;
  if (!Array.isArray(v.symbols) || v.symbols.length < 2 || v.symbols.length > 257 || !v.symbols.every((s) => typeof s === 'string' && s.length <= 8) ||
      typeof v.bytes !== 'boolean' || !Array.isArray(v.triggers) || v.symbols[v.symbols.length - 1] !== '')
    throw bad('has a vocabulary that is not a list of at most 257 short symbols ending with BOS');
  if (!Number.isInteger(h.steps) || h.steps < 0 || h.steps > 1e7) throw bad(`has steps = ${describe(h.steps)}`);
  const vocab = r.corpus === 'bigram_backcopy' ? null : makeVocab([...v.symbols], v.bytes, []);
  if (vocab && !v.bytes && new Set(v.symbols.slice(0, -1)).size !== v.symbols.length - 1) throw bad('has a vocabulary with a repeated symbol');
  let text = null, trainable = true;
  if (r.corpus === 'text') {
    if (o.text !== undefined) {
      if (typeof o.text !== 'string') throw new SoftscopeTypeError(`${where}: options.text must be a string (got ${describe(o.text)})`, { argument: 'options.text' });
      if (o.text.length > LANGUAGE_LIMITS.textChars) throw fail(where, 'options.text', `has ${o.text.length} characters > ${LANGUAGE_LIMITS.textChars}`, STATUS.SS_ERR_TOO_LARGE);
      text = o.text;
    }
    if (o.text === undefined) {
      // no corpus in the file: a placeholder (the vocabulary's symbols, repeated) so that the model can be built; it
      // generates and is inspected, but does not train
      const need = 2 * (r.context + 2), unit = vocab.bytes ? 'a' : vocab.symbols.slice(0, -1).join('');
      text = unit.repeat(Math.ceil(need / unit.length));
      trainable = false;
    }
  }
  let lm;
  try {
    lm = new LanguageModel(ss, r, { text, vocab, trainable });
  } catch (e) {
    if (o.text !== undefined && e.argument === 'options.text') throw e;
    throw bad(`describes a model softscope cannot build: ${e.message}`);
  }
  try {
    if (lm.vocab.size !== v.symbols.length) throw bad(`has ${v.symbols.length} symbols; its model has ${lm.vocab.size}`);
    const at = 12 + hlen + ((4 - ((12 + hlen) % 4)) % 4);
    const count = lm.model.paramCount;
    if (h.paramCount !== count || bytes.length !== at + count * 4)
      throw bad(`holds ${Math.max(0, Math.floor((bytes.length - at) / 4))} parameters; the model it describes has ${count}`, STATUS.SS_ERR_LENGTH);
    const p = new Float32Array(count);
    for (let i = 0; i < count; i++) {
      p[i] = dv.getFloat32(at + i * 4, true);
      if (!Number.isFinite(p[i])) throw bad(`has a parameter that is not finite (${p[i]} at ${i})`, Number.isNaN(p[i]) ? STATUS.SS_ERR_NAN : STATUS.SS_ERR_NONFINITE);
    }
    lm.model.setParams(p);
    return lm;
  } catch (e) {
    lm.free();
    throw e;
  }
}

export { grammarText };
