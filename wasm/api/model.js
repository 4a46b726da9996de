// The tiny attention model of issue 27 (core/src/model) through the JS API:
// createModel(ss, options) makes a model with its parameter arena, optimizer state
// and workspace in the wasm heap; step(k) trains, evaluate() and
// attentionMap() read it, params() / setParams() / tensors() expose the
// arena, free() gives the memory back. A function of the package entry
// (index.js), not a method: bundles that never train leave it out.
//
// Everything is computed in C (ss_task_batch, ss_model_step, ss_model_forward,
// ss_model_grad; the measures through ss.measure). The C structs are laid
// out from what the module itself reports (the registry JSON's
// "model_structs": sizes and field offsets in this build, and the limits of
// softscope.h), the enums (tasks, positions, schedules) from its "enums".
import { SoftscopeError, SoftscopeTypeError, STATUS, describe } from './errors.js';
import { options as opts, integer, flag, choice, u64, paramsOf } from './args.js';
import { viewOf } from './views.js';
import { Softscope } from './softscope.js';

// The per-head measures evaluate() reports: registry measures of the last
// layer's query-row weights (one row per example and head).
const HEAD_MEASURES = { entropy: 'entropy', maxWeight: 'max_prob', support: 'support' };
// evaluate(): examples per forward so that its workspace stays below this.
const EVAL_WORK_BYTES = 32 * 2 ** 20;
const MAX_EXAMPLES = 1 << 16;
const MAX_STEPS = 1e7;

const KEYS = ['task', 'values', 'keys', 'd', 'heads', 'layers', 'mlp', 'positions', 'maxN', 'causal', 'norm', 'tied', 'attention',
  'normalizer', 'normalizerParams', 'trainNormParams', 'loss', 'seed', 'optimizer', 'optimizerParams', 'schedule',
  'steps', 'warmup', 'decay', 'minFactor', 'batch', 'trainN', 'text'];
// The option that sets each ss_model_config member (ss_model_check_field names the member at fault); DATA_FIELDS are
// the task's (or the text's) shape, set by options.task (options.text.vocab).
const CONFIG_OPTION = {
  d: 'd', heads: 'heads', layers: 'layers', mlp: 'mlp', positions: 'positions', max_n: 'maxN', causal: 'causal',
  train_norm_params: 'trainNormParams', norm: 'norm', tied: 'tied', attention: 'attention', normalizer: 'normalizer',
  norm_params: 'normalizerParams', norm_nparams: 'normalizerParams', loss: 'loss', loss_params: 'loss', loss_nparams: 'loss',
};
const DATA_FIELDS = ['vocab_a', 'vocab_b', 'classes', 'feature', 'loss_at'];
// the members whose values a message shows when C's reason names them ("must divide d": d = 30)
const SIZE_FIELDS = ['vocab_a', 'vocab_b', 'classes', 'd', 'heads', 'layers', 'max_n'];
// options.text: a token sequence to model (a language model: the loss at every position)
const TEXT_KEYS = ['tokens', 'validation', 'vocab', 'bos'];

/** A model and its training run on the instance ss (see index.d.ts:
 *  ModelOptions). A function of its own module rather than a method of
 *  every instance: a bundle that never trains (each widget but the
 *  experiments one) leaves it out. */
export function createModel(ss, options) {
  if (!(ss instanceof Softscope))
    throw new SoftscopeTypeError(`createModel: ss must be a softscope instance from createSoftscope() (got ${describe(ss)})`, { argument: 'ss' });
  return ss._call((o) => new Model(ss, o), [options]);
}

// The struct layouts of this build: { name: { size, fields, limits } }.
function layouts(ss) {
  const list = ss._registry.model_structs;
  if (!Array.isArray(list)) throw new SoftscopeError('softscope.model: this wasm build has no model (rebuild with `make wasm`)', STATUS.SS_ERR_UNSUPPORTED);
  return Object.fromEntries(list.map((s) => [s.name, s]));
}

// A C struct in a malloc'd block: set(field, value) by the module's offsets.
class Struct {
  constructor(heap, layout) {
    this.heap = heap;
    this.layout = layout;
    this.ptr = heap.malloc(layout.size);
    heap.refresh();
    heap.u8.fill(0, this.ptr, this.ptr + layout.size);
  }

  at(field) {
    const off = this.layout.fields[field];
    if (off === undefined) throw new Error(`softscope.model: ${this.layout.name} has no field ${field}`);
    return this.ptr + off;
  }

  u32(field, v) { this.heap.refresh(); this.heap.u32[this.at(field) >>> 2] = v; }
  u64(field, v) {
    this.heap.refresh();
    const p = this.at(field) >>> 2; // little endian, 8-aligned
    this.heap.u32[p] = Number(v & 0xffffffffn);
    this.heap.u32[p + 1] = Number(v >> 32n);
  }
  f64(field, v) { this.heap.refresh(); this.heap.f64[this.at(field) >>> 3] = v; }
  getU32(field) { this.heap.refresh(); return this.heap.u32[this.at(field) >>> 2]; }
  getF64(field) { this.heap.refresh(); return this.heap.f64[this.at(field) >>> 3]; }
}

class Model {
  #ss;
  #heap;
  #blocks = [];
  #freed = false;

  constructor(ss, options) {
    const where = 'softscope.model';
    this.#ss = ss;
    this.#heap = ss._heap;
    const L = layouts(ss);
    const lim = L.ss_model_config.limits;
    const o = opts(options, where, KEYS);
    const data = this.#data(o, L, lim, where);
    try {
      const c = this.#options(o, data, lim, where);
      this.#configure(c, data, L, where);
      const work = this.#lengths(c, data, lim, where);
      this.#allocate(c, data, L, work, where);
      this.config = Object.freeze({ task: data.text ? 'text' : ss.enums.task[data.taskKind], values: data.values, keys: data.keys, d: c.d,
        heads: c.heads, layers: c.layers, mlp: c.mlp, positions: ss.enums.positions[c.positions], norm: ss.enums.norm[c.norm], tied: c.tied,
        lossAt: ss.enums.loss_at[data.lossAt], feature: !!data.feature, maxN: c.maxN, causal: c.causal, attention: c.attention.name,
        normalizer: c.normalizer.name, trainNormParams: c.trainNorm, loss: c.loss.name, seed: Number(c.seed), optimizer: c.optimizer.name,
        schedule: ss.schedules[c.schedule], steps: c.steps, warmup: c.warmup, decay: c.decay, minFactor: c.minFactor, batch: c.batch,
        trainN: Object.freeze([...c.trainN]), vocabA: data.vocabA, vocabB: data.vocabB, classes: data.classes });
      this._seed = c.seed;
      this.workspaceBytes = work;
      this.#rows(c, where);
      this.steps = 0;
      this.diverged = false;
    } catch (e) {
      this.free();
      throw e;
    }
  }

  // The data: a token text (options.text), or a task by name with its shape from C (ss_task_shape_of: vocabularies,
  // classes, feature, where the loss reads). { text, taskKind, values, keys, task, vocabA, vocabB, classes, feature,
  // lossAt, every }.
  #data(o, L, lim, where) {
    const ss = this.#ss;
    const int = (key, def, min, max) => integer(o, key, def, min, max, where);
    const text = o.text === undefined ? null : this.#text(o.text, lim, where);
    const taskKind = text ? -1 : choice(o, 'task', ss.enums.task, 'max_retrieval', where);
    const values = int('values', 16, 1, lim.max_vocab), keys = int('keys', 16, 1, lim.max_vocab);
    const task = this.#struct(L.ss_task);
    task.u32('kind', text ? 0 : taskKind);
    task.u32('values', text ? 16 : values);
    task.u32('keys', text ? 16 : keys);
    const shape = this.#struct(L.ss_task_shape);
    if (text) {
      for (const [f, v] of Object.entries({ vocab_a: text.vocab, vocab_b: 0, classes: text.vocab, feature: 0, loss_at: ss.enums.loss_at.indexOf('every'), min_n: 1 }))
        shape.u32(f, v);
    } else if (ss.exports.ss_task_shape_of(task.ptr, shape.ptr) !== 0) {
      // which one: C's verdict with keys at a value it takes (1 for bigram_backcopy's triggers, 2 for the kv tasks)
      const takes = (k) => (task.u32('keys', k), ss.exports.ss_task_shape_of(task.ptr, shape.ptr) === 0);
      const bad = takes(1) || takes(2) ? 'keys' : 'values';
      task.u32('keys', keys);
      this.free();
      throw new SoftscopeError(`${where}: options.${bad} = ${bad === 'keys' ? keys : values} is out of range for the task ${ss.enums.task[taskKind]}`,
        STATUS.SS_ERR_PARAM_RANGE, { argument: `options.${bad}` });
    }
    const [vocabA, vocabB, classes, feature, lossAt] = ['vocab_a', 'vocab_b', 'classes', 'feature', 'loss_at'].map((f) => shape.getU32(f));
    return { text, taskKind, values, keys, task, vocabA, vocabB, classes, feature, lossAt, every: ss.enums.loss_at[lossAt] === 'every' };
  }

  // The model's and the run's options, each read and checked once (kernels looked up, their parameters packed by C).
  #options(o, data, lim, where) {
    const ss = this.#ss, every = data.every;
    const int = (key, def, min, max) => integer(o, key, def, min, max, where);
    const d = int('d', 64, 2, lim.max_d), heads = int('heads', 4, 1, lim.max_heads), layers = int('layers', 1, 1, lim.max_layers);
    const mlp = flag(o, 'mlp', true, where), causal = flag(o, 'causal', every, where);
    if (every && !causal)
      throw new SoftscopeError(`${where}: options.causal = false: the task ${ss.enums.task[data.taskKind]} predicts every next token, which needs a causal mask`,
        STATUS.SS_ERR_PARAM_RANGE, { argument: 'options.causal' });
    const norm = choice(o, 'norm', ss.enums.norm, 'rmsnorm', where), tied = flag(o, 'tied', false, where);
    const trainNorm = flag(o, 'trainNormParams', false, where);
    const positions = choice(o, 'positions', ss.enums.positions, 'none', where);
    const trainN = nRange(o.trainN ?? [4, 16], lim.max_n, where, every ? 1 : 2);
    const maxN = int('maxN', trainN[1], 1, lim.max_n);
    const batch = int('batch', 32, 1, MAX_EXAMPLES);
    const seed = u64(o, 'seed', where);
    const attention = ss._lookup(o.attention ?? 'sdpa', 'attention', where, 'options.attention');
    const normalizer = ss._lookup(o.normalizer ?? 'softmax', 'normalizer', where, 'options.normalizer');
    const loss = ss._lookup(o.loss ?? 'cross_entropy', 'loss', where, 'options.loss');
    const optimizer = ss._lookup(o.optimizer ?? 'adamw', 'optimizer', where, 'options.optimizer');
    const normParams = this.#params(normalizer, o.normalizerParams, where, 'options.normalizerParams');
    const lossParams = this.#params(loss, {}, where, 'options.loss', data.classes);
    const optParams = this.#params(optimizer, o.optimizerParams, where, 'options.optimizerParams');
    const schedule = choice(o, 'schedule', ss.schedules, 'constant', where);
    const steps = int('steps', 1000, 1, MAX_STEPS);
    const frac = (key, def) => {
      const v = o[key] ?? def;
      if (typeof v !== 'number' || !(v >= 0 && v <= 1))
        throw new SoftscopeError(`${where}: options.${key} = ${describe(v)} must be a number in [0, 1]`, STATUS.SS_ERR_PARAM_RANGE, { argument: `options.${key}` });
      return v;
    };
    const warmup = int('warmup', 0, 0, steps), decay = frac('decay', 0.2), minFactor = frac('minFactor', 0);
    return { d, heads, layers, mlp, causal, norm, tied, trainNorm, positions, trainN, maxN, batch, seed, attention, normalizer, loss, optimizer,
      normParams, lossParams, optParams, schedule, steps, warmup, decay, minFactor, normalizerParams: o.normalizerParams };
  }

  // The ss_model_config struct (this._cfg), checked by C: a rejection names the member at fault (ss_model_check_field),
  // which the Error names as the option that sets it.
  #configure(c, data, L, where) {
    const ss = this.#ss;
    const cfg = (this._cfg = this.#struct(L.ss_model_config));
    const words = { vocab_a: data.vocabA, vocab_b: data.vocabB, classes: data.classes, d: c.d, heads: c.heads, layers: c.layers, mlp: +c.mlp,
      positions: c.positions, max_n: c.maxN, causal: +c.causal, train_norm_params: +c.trainNorm, feature: data.feature, norm: c.norm, tied: +c.tied,
      loss_at: data.lossAt, attention: ss._ptr.get(c.attention), normalizer: ss._ptr.get(c.normalizer), norm_params: c.normParams.ptr,
      norm_nparams: c.normParams.n, loss: ss._ptr.get(c.loss), loss_params: c.lossParams.ptr, loss_nparams: c.lossParams.n };
    for (const [f, v] of Object.entries(words)) cfg.u32(f, v);
    cfg.u64('seed', c.seed);
    const out = ss._scratch.get('model-check', 8), h = this.#heap;
    const s = ss.exports.ss_model_check_field(cfg.ptr, out, out + 4);
    if (s === 0) return;
    h.refresh();
    const field = ss._cString(h.u32[out >>> 2]), reason = ss._cString(h.u32[(out >>> 2) + 1]);
    const fromData = DATA_FIELDS.includes(field);
    const key = fromData ? (data.text ? 'text.vocab' : 'task') : CONFIG_OPTION[field];
    if (!key) throw new SoftscopeError(`${where}: options describe a model ss_model_check rejects: ${field} ${reason} (${ss._statusStr(s)})`, s, { argument: 'options' });
    const shown = { d: c.d, heads: c.heads, layers: c.layers, mlp: c.mlp, positions: ss.enums.positions[c.positions], maxN: c.maxN, causal: c.causal,
      trainNormParams: c.trainNorm, norm: ss.enums.norm[c.norm], tied: c.tied, attention: c.attention.name, normalizer: c.normalizer.name,
      normalizerParams: c.normalizerParams ?? {}, loss: c.loss.name, task: ss.enums.task[data.taskKind], 'text.vocab': data.text?.vocab }[key];
    // the member itself when the option only decides it (the task's vocabularies); the sizes the reason names, as set
    const sizes = [...new Set(reason.match(/\w+/g))].filter((w) => w !== field && SIZE_FIELDS.includes(w)).map((w) => `${w} = ${words[w]}`);
    throw new SoftscopeError(`${where}: options.${key} = ${JSON.stringify(shown)} ${fromData ? `(${field}) ` : ''}${reason}${sizes.length ? ` (${sizes.join(', ')})` : ''} (${ss._statusStr(s)})`,
      s, { argument: `options.${key}` });
  }

  // The training lengths: each n of trainN checked by C (ss_model_workspace_size), then by the task's own rule
  // (kv_or_none: n >= 3; a batch of one at each end) or the text's windows; the workspace of a batch (its bytes).
  #lengths(c, data, lim, where) {
    const ss = this.#ss, ex = ss.exports, cfg = this._cfg, { trainN } = c, text = data.text;
    for (const n of trainN)
      if (!ex.ss_model_workspace_size(cfg.ptr, 1, n))
        throw new SoftscopeError(`${where}: options.trainN = [${trainN}]: n = ${n} is out of range for this model (2 <= n <= ${lim.max_n}${c.positions === ss.enums.positions.indexOf('learned') ? `, n <= maxN = ${c.maxN}` : ''})`,
          STATUS.SS_ERR_PARAM_RANGE, { argument: 'options.trainN' });
    const probe = this.#arrays(1, trainN[1]);
    this._textData = text;
    for (const n of trainN)
      if (text) {
        for (const part of ['train', 'validation']) {
          const st = text[part].length ? this.#textBatch(text[part], 0n, 0n, 1, n, probe) : 0;
          const arg = `options.text.${part === 'train' ? 'tokens' : 'validation'}`;
          if (st === STATUS.SS_ERR_DOMAIN)
            throw new SoftscopeError(`${where}: ${arg} holds a token >= vocab = ${text.vocab}`, st, { argument: arg });
          if (st !== 0)
            throw new SoftscopeError(`${where}: ${arg}: ${text[part].length} tokens hold no window of n = ${n} (${text.bos === null ? 'n + 1' : 'n'} tokens needed)`, st, { argument: arg });
        }
      } else if (ex.ss_task_batch(data.task.ptr, 0n, 0n, 1, n, probe.a, probe.b, probe.f, probe.t) !== 0)
        throw new SoftscopeError(`${where}: options.trainN = [${trainN}]: the task ${ss.enums.task[data.taskKind]} takes no example of n = ${n} items`,
          STATUS.SS_ERR_PARAM_RANGE, { argument: 'options.trainN' });
    const work = ex.ss_model_workspace_size(cfg.ptr, c.batch, trainN[1]) >>> 0;
    if (!work)
      throw new SoftscopeError(`${where}: options.batch = ${c.batch} is out of range with n up to ${trainN[1]} (batch n d <= ${ss.maxN})`,
        STATUS.SS_ERR_PARAM_RANGE, { argument: 'options.batch' });
    return work;
  }

  // The optimizer's struct, the arenas (parameters, gradients, optimizer state, per-tensor scalars), the workspace, the
  // batch's arrays and structs; the parameters' seeded init.
  #allocate(c, data, L, work, where) {
    const ss = this.#ss, ex = ss.exports, cfg = this._cfg;
    const optim = (this._optim = this.#struct(L.ss_model_optim));
    optim.u32('optimizer', ss._ptr.get(c.optimizer));
    optim.u32('params', c.optParams.ptr);
    optim.u32('nparams', c.optParams.n);
    optim.u32('schedule', c.schedule);
    optim.f64('total', c.steps);
    optim.f64('warmup', c.warmup);
    optim.f64('decay', c.decay);
    optim.f64('min_factor', c.minFactor);

    this.paramCount = ex.ss_model_param_count(cfg.ptr) >>> 0;
    this._tensorCount = ex.ss_model_tensor_count(cfg.ptr) >>> 0;
    const stateFloats = ex.ss_model_opt_state_size(cfg.ptr, ss._ptr.get(c.optimizer)) >>> 0;
    this._params = this.#block(this.paramCount * 4);
    this._grads = this.#block(this.paramCount * 4);
    this._state = this.#block(stateFloats * 4, true);
    this._scalars = this.#block(this._tensorCount * L.ss_model_optim.limits.scalars_per_tensor * 8, true);
    this._work = this.#block(work);
    this._workBytes = work;
    this._batchArrays = this.#arrays(c.batch, c.trainN[1]);
    this._batch = this.#struct(L.ss_model_batch);
    this._out = this.#struct(L.ss_model_outputs);
    this._taskStruct = data.task;
    const si = ex.ss_model_init(cfg.ptr, this._params);
    if (si !== 0) throw ss._fail(where, si, []);
  }

  // A normalizer may reject a row length of the training range (topk_softmax's k > n): one forward of one example at
  // each end, so that the model is refused here, naming the option, not at some step.
  #rows(c, where) {
    for (const n of new Set(c.trainN)) {
      const st = this.#forward(c.seed, 0, 1, n, {}, where);
      if (st !== 0 && st !== STATUS.SS_ERR_NAN && st !== STATUS.SS_ERR_NONFINITE && st !== STATUS.SS_ERR_DOMAIN)
        throw new SoftscopeError(`${where}: options.trainN = [${c.trainN}]: the normalizer ${c.normalizer.name} (with its parameters: options.normalizerParams, or the registry's defaults) rejects a row of n = ${n} items (${this.#ss._statusStr(st)})`,
          st, { argument: 'options.trainN' });
    }
  }

  // A malloc'd block owned by the model (zeroed when asked).
  #block(bytes, zero = false) {
    const p = this.#heap.malloc(bytes);
    this.#blocks.push(p);
    if (zero) {
      this.#heap.refresh();
      this.#heap.u8.fill(0, p, p + bytes);
    }
    return p;
  }

  #struct(layout) {
    const s = new Struct(this.#heap, layout);
    this.#blocks.push(s.ptr);
    return s;
  }

  // A kernel's parameters, checked by C and copied into a block of the model.
  #params(k, params, where, arg, n) {
    const np = this.#ss._packParams(k, paramsOf(params, where, arg), where, n, arg);
    const ptr = this.#block(Math.max(8, np * 8));
    const h = this.#heap;
    h.refresh();
    h.f64.copyWithin(ptr >>> 3, this.#ss._paramsPtr >>> 3, (this.#ss._paramsPtr >>> 3) + np);
    return { ptr, n: np };
  }

  // tokens_a, tokens_b, feature, target for `batch` examples of up to n items.
  #arrays(batch, n) {
    const items = batch * n;
    return { batch, n, a: this.#block(items * 4), b: this.#block(items * 4), f: this.#block(items * 4), t: this.#block(items * 4) };
  }

  #live(where) {
    if (this.#freed) throw new SoftscopeError(`${where}: the model was freed`, STATUS.SS_ERR_NULL);
    if (this.#heap !== this.#ss._heap || this.#heap.closed)
      throw new SoftscopeError(`${where}: the model's wasm instance was re-created (reset or a trap): make a new model`, STATUS.SS_ERR_NULL);
  }

  // options.text checked and copied into the heap: { train, validation: { ptr, length }, vocab, bos (null: none) }.
  #text(t, lim, where) {
    const o = opts(t, where, TEXT_KEYS, 'options.text');
    const vocab = integer(o, 'vocab', undefined, 2, lim.max_vocab, where, 'options.text');
    const bos = o.bos === undefined || o.bos === null ? null : integer(o, 'bos', undefined, 0, vocab - 1, where, 'options.text');
    const copy = (key) => {
      const v = o[key] ?? (key === 'validation' ? new Uint32Array(0) : undefined);
      if (!(v instanceof Uint32Array))
        throw new SoftscopeTypeError(`${where}: options.text.${key} must be a Uint32Array of token ids (got ${describe(v)})`, { argument: `options.text.${key}` });
      if (v.length > this.#ss.maxN)
        throw new SoftscopeError(`${where}: options.text.${key} has ${v.length} tokens > maxN (${this.#ss.maxN})`, STATUS.SS_ERR_TOO_LARGE, { argument: `options.text.${key}` });
      const ptr = this.#block(Math.max(4, v.length * 4));
      this.#heap.refresh();
      this.#heap.u32.set(v, ptr >>> 2);
      return { ptr, length: v.length };
    };
    return { train: copy('tokens'), validation: copy('validation'), vocab, bos };
  }

  // ss_text_batch of part (train or validation) into arr: its status.
  #textBatch(part, seed, step, batch, n, arr) {
    const t = this._textData, NO_BOS = 0xffffffff;
    return this.#ss.exports.ss_text_batch(part.ptr, part.length, t.vocab, t.bos ?? NO_BOS, seed, BigInt(step), batch, n, arr.a, arr.t);
  }

  // One batch from the task (or the text: its training part, or its validation part for a test set) into arrays
  // `arr` and the batch struct; its pointer.
  #fill(arr, seed, step, batch, n, where, test = false) {
    const ex = this.#ss.exports, t = this._textData;
    const s = t ? this.#textBatch(test && t.validation.length ? t.validation : t.train, seed, step, batch, n, arr)
      : ex.ss_task_batch(this._taskStruct.ptr, seed, BigInt(step), batch, n, arr.a, arr.b, arr.f, arr.t);
    if (s !== 0) throw this.#ss._fail(where, s, []);
    const b = this._batch;
    for (const [f, v] of Object.entries({ batch, n, tokens_a: arr.a, tokens_b: arr.b, feature: arr.f, target: arr.t })) b.u32(f, v);
    return b.ptr;
  }

  // The outputs struct with the given pointers (0: not asked for).
  #outputs(ptrs = {}) {
    const o = this._out;
    for (const f of ['pred', 'logits', 'query_attn', 'maps', 'map_example', 'position_loss', 'hidden', 'values']) o.u32(f, ptrs[f] ?? 0);
    return o.ptr;
  }

  /** The n of training step t (0-based): trainN[0] + t mod (trainN[1] - trainN[0] + 1). */
  trainLength(t) {
    const [lo, hi] = this.config.trainN;
    return lo + (t % (hi - lo + 1));
  }

  /** k training steps: { step, loss, accuracy } of the last one (the forward
   *  before its update), or { diverged: true, step } when the loss became
   *  NaN or Inf at that step (the run then stays diverged). */
  step(k = 1) {
    return this.#ss._call(this.#step, [k], this);
  }

  #step(k) {
    const where = 'model.step', ss = this.#ss;
    this.#live(where);
    if (!Number.isInteger(k) || k < 1 || k > MAX_STEPS)
      throw new SoftscopeError(`${where}: k = ${describe(k)} must be an integer in [1, ${MAX_STEPS}]`, STATUS.SS_ERR_PARAM_RANGE, { argument: 'k' });
    if (this.diverged) return { diverged: true, step: this.divergedAt };
    let last = null;
    for (let i = 0; i < k; i++) {
      const t = this.steps, n = this.trainLength(t);
      const pb = this.#fill(this._batchArrays, this._seed, t, this.config.batch, n, where);
      const out = this.#outputs();
      const s = ss.exports.ss_model_step(this._cfg.ptr, ss._implId, this._optim.ptr, this._params, this._grads, this._state,
        this._scalars, pb, this._work, this._workBytes, out);
      if (s === STATUS.SS_ERR_DOMAIN || s === STATUS.SS_ERR_NAN || s === STATUS.SS_ERR_NONFINITE) {
        this.diverged = true;
        this.divergedAt = t + 1;
        return { diverged: true, step: t + 1 };
      }
      if (s !== 0) throw ss._fail(where, s, []);
      this.steps = t + 1;
      last = { step: this.steps, loss: this._out.getF64('loss'), accuracy: this._out.getF64('accuracy') };
    }
    return last;
  }

  // A test batch's shape and seed from options { n, examples, seed }.
  #testOptions(options, where, defExamples) {
    const o = opts(options, where, ['n', 'examples', 'seed']);
    const lim = layouts(this.#ss).ss_model_config.limits;
    const n = integer(o, 'n', this.config.trainN[1], 2, lim.max_n, where);
    const examples = integer(o, 'examples', defExamples, 1, MAX_EXAMPLES, where);
    const seed = o.seed === undefined ? this._seed + 1n : u64(o, 'seed', where);
    const ex = this.#ss.exports;
    if (!ex.ss_model_forward_workspace_size(this._cfg.ptr, 1, n))
      throw new SoftscopeError(`${where}: options.n = ${n} is out of range for this model${this.config.positions === 'learned' ? ` (learned positions: n <= maxN = ${this.config.maxN})` : ''}`,
        STATUS.SS_ERR_PARAM_RANGE, { argument: 'options.n' });
    return { n, examples, seed };
  }

  // One forward on `examples` test examples (chunk `chunk` of the test set
  // of `seed`): its status, with the outputs asked for in `ptrs`.
  #forward(seed, chunk, examples, n, ptrs, where) {
    const ss = this.#ss, ex = ss.exports;
    const work = ex.ss_model_forward_workspace_size(this._cfg.ptr, examples, n) >>> 0;
    const pw = ss._scratch.get('model-work', work);
    const arr = testArrays(ss, examples, n);
    const pb = this.#fill(arr, seed, chunk, examples, n, where, true);
    return ex.ss_model_forward(this._cfg.ptr, ss._implId, this._params, pb, pw, work, this.#outputs(ptrs));
  }

  // Examples per forward at length n: all of them, or fewer so that a
  // forward's workspace stays below EVAL_WORK_BYTES (at least one).
  #chunk(examples, n) {
    const ex = this.#ss.exports;
    let c = Math.min(examples, Math.max(1, Math.floor(this.#ss.maxN / (n * this.config.d))));
    // a size of 0: c examples of n items are past the model's limits (batch n 4d <= maxN with the MLP's 4d)
    const fits = (k) => { const w = ex.ss_model_forward_workspace_size(this._cfg.ptr, k, n) >>> 0; return w > 0 && w <= EVAL_WORK_BYTES; };
    while (c > 1 && !fits(c)) c = Math.ceil(c / 2);
    return c;
  }

  /** The model on a seeded test set of `examples` examples of n items:
   *  { n, examples, accuracy, loss (means), entropy, maxWeight, support
   *  (per head: the mean over examples of that measure of the last layer's
   *  query-row weights) }. The test set of a seed is the task's batches of
   *  that seed, step = 0, 1, ... (default seed: the model's + 1). */
  evaluate(options) {
    return this.#ss._call(this.#evaluate, [options], this);
  }

  #evaluate(options) {
    const where = 'model.evaluate', ss = this.#ss;
    this.#live(where);
    const { n, examples, seed } = this.#testOptions(options, where, 64);
    const H = this.config.heads, chunk = this.#chunk(examples, n);
    const sums = Object.fromEntries(Object.keys(HEAD_MEASURES).map((m) => [m, new Float64Array(H)]));
    let loss = 0, accuracy = 0, signed = false;
    const every = this.config.lossAt === 'every', positionLoss = every ? new Float64Array(n) : null;
    for (let start = 0, c = 0; start < examples; start += chunk, c++) {
      const e = Math.min(chunk, examples - start);
      const pq = ss._scratch.get('model-qattn', e * H * n * 4);
      const pp = every ? ss._scratch.get('model-ploss', n * 4) : 0;
      const s = this.#forward(seed, c, e, n, { query_attn: pq, position_loss: pp }, where);
      if (s !== 0) throw ss._fail(where, s, []);
      loss += this._out.getF64('loss') * e;
      accuracy += this._out.getF64('accuracy') * e;
      ss._heap.refresh();
      if (every) for (let i = 0; i < n; i++) positionLoss[i] += ss._heap.f32[(pp >>> 2) + i] * e;
      const q = ss._heap.f32.slice(pq >>> 2, (pq >>> 2) + e * H * n);
      // signed weights (sa_softmax, boltzmann may weigh a key below 0) are no distribution: their measures are NaN
      if (q.some((x) => x < 0)) signed = true;
      if (signed) continue;
      for (const [m, kernel] of Object.entries(HEAD_MEASURES)) {
        const per = ss.measure(kernel, q, {}, { rows: e * H }); // row = example * H + head
        for (let r = 0; r < per.length; r++) sums[m][r % H] += per[r];
      }
    }
    const mean = (a) => Array.from(a, (v) => (signed ? NaN : v / examples));
    return { n, examples, accuracy: accuracy / examples, loss: loss / examples,
      entropy: mean(sums.entropy), maxWeight: mean(sums.maxWeight), support: mean(sums.support),
      ...(every ? { positionLoss: Float32Array.from(positionLoss, (v) => v / examples) } : {}) };
  }

  /** The loss of the test set's first `examples` examples (one forward) and
   *  its gradient with respect to the parameter arena: { loss, grad }. */
  gradient(options) {
    return this.#ss._call(this.#gradient, [options], this);
  }

  #gradient(options) {
    const where = 'model.gradient', ss = this.#ss, ex = ss.exports;
    this.#live(where);
    const { n, examples, seed } = this.#testOptions(options, where, 8);
    const work = ex.ss_model_workspace_size(this._cfg.ptr, examples, n) >>> 0;
    if (!work) throw new SoftscopeError(`${where}: options.examples = ${examples} is too many at n = ${n}`, STATUS.SS_ERR_TOO_LARGE, { argument: 'options.examples' });
    const pw = ss._scratch.get('model-work', work);
    const arr = testArrays(ss, examples, n);
    const pb = this.#fill(arr, seed, 0, examples, n, where, true);
    const pg = ss._scratch.get('model-grad', this.paramCount * 4);
    const s = ex.ss_model_grad(this._cfg.ptr, ss._implId, this._params, pb, pw, work, pg, this.#outputs());
    if (s !== 0) throw ss._fail(where, s, []);
    ss._heap.refresh();
    return { loss: this._out.getF64('loss'), grad: ss._heap.f32.slice(pg >>> 2, (pg >>> 2) + this.paramCount) };
  }

  /** Every layer's and head's attention weights on one test example (the
   *  first of the test set of `seed`): { layers, heads, n, maps }, maps
   *  layer by layer, head by head, n x n row-major (query i, key j). */
  attentionMap(options) {
    return this.#ss._call(this.#attentionMap, [options], this);
  }

  #attentionMap(options) {
    const where = 'model.attentionMap', ss = this.#ss;
    this.#live(where);
    const { n, seed } = this.#testOptions({ ...opts(options, where, ['n', 'seed']), examples: 1 }, where, 1);
    const { layers, heads } = this.config;
    const count = layers * heads * n * n;
    if (count > ss.maxN)
      throw new SoftscopeError(`${where}: options.n = ${n}: the maps would hold ${count} values > maxN (${ss.maxN})`, STATUS.SS_ERR_TOO_LARGE, { argument: 'options.n' });
    const pm = ss._scratch.get('model-maps', count * 4);
    const s = this.#forward(seed, 0, 1, n, { maps: pm, map_example: 0 }, where);
    if (s !== 0) throw ss._fail(where, s, []);
    ss._heap.refresh();
    return { layers, heads, n, maps: ss._heap.f32.slice(pm >>> 2, (pm >>> 2) + count) };
  }

  /** The token ids of a test set's first examples (the task's batch, or windows of the text's validation part) under
   *  seed: { tokens (examples x n), targets (examples x n for a loss at every position, else examples), n, examples }. */
  testTokens(options) {
    return this.#ss._call(this.#testTokens, [options], this);
  }

  #testTokens(options) {
    const where = 'model.testTokens', ss = this.#ss;
    this.#live(where);
    const { n, examples, seed } = this.#testOptions(options, where, 1);
    const arr = testArrays(ss, examples, n);
    this.#fill(arr, seed, 0, examples, n, where, true);
    const h = this.#heap, T = this.config.lossAt === 'every' ? examples * n : examples;
    h.refresh();
    return { n, examples, tokens: h.u32.slice(arr.a >>> 2, (arr.a >>> 2) + examples * n), targets: h.u32.slice(arr.t >>> 2, (arr.t >>> 2) + T) };
  }

  /** The model on one sequence of token ids (n = tokens.length positions): { n, loss, logits, maps, hidden, values },
   *  each array only when options asks for it (logits: read rows x classes, the read rows being every position with
   *  the loss at every position, else the last; maps: layers x heads x n x n; hidden: (layers + 1) x n x d, the
   *  residual stream entering each layer and after the last; values: layers x n x d). A model of one token table
   *  without features (a language model). The loss is against targets 0 (not meaningful). */
  forwardTokens(tokens, options) {
    return this.#ss._call(this.#forwardTokens, [tokens, options], this);
  }

  #forwardTokens(tokens, options) {
    const where = 'model.forwardTokens', ss = this.#ss, ex = ss.exports;
    const o = opts(options, where, ['logits', 'maps', 'hidden', 'values']);
    const want = Object.fromEntries(['logits', 'maps', 'hidden', 'values'].map((k) => [k, flag(o, k, false, where)]));
    const ids = Uint32Array.from(Array.isArray(tokens) || ArrayBuffer.isView(tokens) ? tokens : [], (x) => x);
    if (!(Array.isArray(tokens) || ArrayBuffer.isView(tokens)) || ids.length !== tokens.length || !Array.from(tokens).every((x) => Number.isInteger(x) && x >= 0))
      throw new SoftscopeTypeError(`${where}: tokens must be an array of token ids (got ${describe(tokens)})`, { argument: 'tokens' });
    this.#live(where);
    const c = this.config, n = ids.length;
    if (c.vocabB || c.feature)
      throw new SoftscopeError(`${where}: the model reads two token tables or a feature (task ${c.task}); forwardTokens takes a model of one`, STATUS.SS_ERR_UNSUPPORTED, { argument: 'this' });
    const bad = ids.findIndex((t) => t >= c.vocabA);
    if (bad >= 0)
      throw new SoftscopeError(`${where}: tokens[${bad}] = ${ids[bad]} is not below the vocabulary (${c.vocabA})`, STATUS.SS_ERR_DOMAIN, { argument: 'tokens', index: bad });
    const work = n ? ex.ss_model_forward_workspace_size(this._cfg.ptr, 1, n) >>> 0 : 0;
    if (!work)
      throw new SoftscopeError(`${where}: tokens.length = ${n} is out of range for this model (1 <= n${c.positions === 'learned' ? ` <= maxN = ${c.maxN}` : ` <= ${layouts(ss).ss_model_config.limits.max_n}`})`, STATUS.SS_ERR_PARAM_RANGE, { argument: 'tokens' });
    const rows = c.lossAt === 'every' ? n : 1, L = c.layers, d = c.d;
    const sizes = { logits: rows * c.classes, maps: L * c.heads * n * n, hidden: (L + 1) * n * d, values: L * n * d };
    if (want.maps && sizes.maps > ss.maxN)
      throw new SoftscopeError(`${where}: tokens.length = ${n}: the maps would hold ${sizes.maps} values > maxN (${ss.maxN})`, STATUS.SS_ERR_TOO_LARGE, { argument: 'tokens' });
    const pw = ss._scratch.get('model-work', work);
    const arr = testArrays(ss, 1, n);
    const h = this.#heap;
    h.refresh();
    h.u32.set(ids, arr.a >>> 2);
    h.u32.fill(0, arr.t >>> 2, (arr.t >>> 2) + n);
    const b = this._batch;
    for (const [f, v] of Object.entries({ batch: 1, n, tokens_a: arr.a, tokens_b: 0, feature: 0, target: arr.t })) b.u32(f, v);
    const ptrs = { map_example: 0 };
    for (const k of Object.keys(sizes)) if (want[k]) ptrs[k] = ss._scratch.get(`model-out-${k}`, sizes[k] * 4);
    const s = ex.ss_model_forward(this._cfg.ptr, ss._implId, this._params, b.ptr, pw, work, this.#outputs(ptrs));
    if (s !== 0 && s !== STATUS.SS_ERR_DOMAIN) throw ss._fail(where, s, []);
    h.refresh();
    const out = { n, loss: this._out.getF64('loss') };
    for (const k of Object.keys(sizes)) out[k] = want[k] ? h.f32.slice(ptrs[k] >>> 2, (ptrs[k] >>> 2) + sizes[k]) : null;
    return out;
  }

  /** A decoding session with a cache of keys and values (C: ss_model_decode): feed(tokens) takes the next token (or
   *  an array of them: a prompt, a shifted window, in one call) and returns the logits of the one after them (classes
   *  floats): the last row of forwardTokens on the tokens fed since the last reset(), at a cost of the new rows only. At most options.maxN (the model's maxN with learned
   *  positions, else trainN's max) tokens between resets; position is the count fed. A language model only (one
   *  token table, the loss at every position). free() gives its memory back (the model's free() does too). */
  decoder(options) {
    return this.#ss._call(this.#decoder, [options], this);
  }

  #decoder(options) {
    const where = 'model.decoder', ss = this.#ss, ex = ss.exports;
    const o = opts(options, where, ['maxN']);
    const lim = layouts(ss).ss_model_config.limits;
    const maxN = integer(o, 'maxN', this.config.positions === 'learned' ? this.config.maxN : this.config.trainN[1], 1, lim.max_n, where);
    this.#live(where);
    const bytes = ex.ss_model_decode_size(this._cfg.ptr, maxN) >>> 0;
    if (!bytes) {
      const c = this.config;
      if (c.lossAt !== 'every' || c.vocabB || c.feature)
        throw new SoftscopeError(`${where}: decoding takes a language model (one token table, the loss at every position); this is task ${c.task}`, STATUS.SS_ERR_UNSUPPORTED, { argument: 'this' });
      throw new SoftscopeError(`${where}: options.maxN = ${maxN} is out of range for this model${c.positions === 'learned' ? ` (learned positions: <= ${c.maxN})` : ''}`, STATUS.SS_ERR_PARAM_RANGE, { argument: 'options.maxN' });
    }
    const state = this.#block(bytes), logits = this.#block(this.config.classes * 4), tok = this.#block(maxN * 4);
    const model = this, heap = this.#heap, C = this.config.classes, vocab = this.config.vocabA;
    let pos = 0, freed = false;
    return {
      maxN,
      get position() { return pos; },
      reset() { pos = 0; },
      feed(tokens) {
        const w = 'decoder.feed';
        if (freed) throw new SoftscopeError(`${w}: the decoder was freed`, STATUS.SS_ERR_NULL);
        model.#live(w);
        const list = typeof tokens === 'number' ? [tokens] : Array.isArray(tokens) || ArrayBuffer.isView(tokens) ? Array.from(tokens) : null;
        if (!list || !list.length)
          throw new SoftscopeTypeError(`${w}: tokens must be a token id or a non-empty array of them (got ${describe(tokens)})`, { argument: 'tokens' });
        const bad = list.findIndex((t) => !Number.isInteger(t) || t < 0 || t >= vocab);
        if (bad >= 0)
          throw new SoftscopeError(`${w}: tokens[${bad}] = ${describe(list[bad])} must be an integer in [0, ${vocab})`, STATUS.SS_ERR_DOMAIN, { argument: 'tokens', index: bad });
        if (pos + list.length > maxN)
          throw new SoftscopeError(`${w}: ${pos} + ${list.length} tokens > maxN = ${maxN} since the last reset: reset() and feed the window again`, STATUS.SS_ERR_PARAM_RANGE, { argument: 'tokens' });
        heap.refresh();
        heap.u32.set(list, tok >>> 2);
        const s = ss._call(() => ex.ss_model_decode(model._cfg.ptr, ss._implId, model._params, state, bytes, maxN, tok, list.length, pos, logits), []);
        if (s !== 0) throw ss._fail(w, s, []);
        pos += list.length;
        heap.refresh();
        return heap.f32.slice(logits >>> 2, (logits >>> 2) + C);
      },
      free() {
        if (freed) return;
        freed = true;
        model.#unblock(state);
        model.#unblock(logits);
        model.#unblock(tok);
      },
    };
  }

  // Gives back one block of the model's (a decoder's).
  #unblock(p) {
    const i = this.#blocks.indexOf(p);
    if (i < 0 || this.#freed) return;
    this.#blocks.splice(i, 1);
    this.#heap.free(p);
  }

  /** The calibration inputs of weight matrix options.tensor (an index of
   *  tensors(): a wq, wk, wv, wo, w1, w2 or the unembed) in one forward on
   *  `examples` (64) examples of n (trainN[1]) items drawn under `seed`
   *  (default: the model's own, its training draws): { x, cols, batch }, x
   *  cols x batch row-major (ss.adaround's x), batch the rows it multiplies
   *  (examples n; the last layer's query-row matrices: examples). C:
   *  ss_model_linear_inputs. */
  linearInputs(options) {
    return this.#ss._call(this.#linearInputs, [options], this);
  }

  #linearInputs(options) {
    const where = 'model.linearInputs', ss = this.#ss, ex = ss.exports;
    this.#live(where);
    const o = opts(options, where, ['tensor', 'n', 'examples', 'seed']);
    const tensor = integer(o, 'tensor', undefined, 0, this._tensorCount - 1, where);
    const { n, examples, seed } = this.#testOptions({ n: o.n, examples: o.examples, seed: o.seed ?? this._seed }, where, 64);
    const work = ex.ss_model_forward_workspace_size(this._cfg.ptr, examples, n) >>> 0;
    if (!work) throw new SoftscopeError(`${where}: options.examples = ${examples} is too many at n = ${n}`, STATUS.SS_ERR_TOO_LARGE, { argument: 'options.examples' });
    const pw = ss._scratch.get('model-work', work);
    const pb = this.#fill(testArrays(ss, examples, n), seed, 0, examples, n, where);
    const cap = examples * n * 4 * this.config.d; // the widest input (w2's 4d) at every row
    const px = ss._scratch.get('model-inputs', cap * 4), pn = ss._scratch.get('model-count', 8);
    const h = ss._heap;
    h.refresh();
    h.u32[pn >>> 2] = 0; // C sets the count once it has taken the tensor
    const s = ex.ss_model_linear_inputs(this._cfg.ptr, ss._implId, this._params, pb, pw, work, tensor, px, cap, pn);
    h.refresh();
    const batch = h.u32[pn >>> 2], t = this.tensors()[tensor];
    if (s === STATUS.SS_ERR_DOMAIN && !batch)
      throw new SoftscopeError(`${where}: options.tensor = ${tensor} (${t.name}) is not a linear layer's weight: an embedding, gain or normalizer parameter has no inputs`, s, { argument: 'options.tensor' });
    if (s !== 0) throw ss._fail(where, s, []);
    const cols = t.cols;
    return { x: h.f32.slice(px >>> 2, (px >>> 2) + cols * batch), cols, batch };
  }

  /** A copy of the parameter arena (paramCount floats; layout: tensors()). */
  params() {
    this.#live('model.params');
    this.#heap.refresh();
    return this.#heap.f32.slice(this._params >>> 2, (this._params >>> 2) + this.paramCount);
  }

  /** Replace the parameters (a Float32Array of paramCount finite values);
   *  the optimizer's state and step count are kept. */
  setParams(values) {
    const where = 'model.setParams';
    this.#live(where);
    if (!ArrayBuffer.isView(values) || values.constructor?.name !== 'Float32Array')
      throw new SoftscopeTypeError(`${where}: values must be a Float32Array (got ${describe(values)})`, { argument: 'values' });
    const v = viewOf(values, Float32Array, 'values', where, this.#heap.memory.buffer);
    if (v.length !== this.paramCount)
      throw new SoftscopeError(`${where}: values has ${v.length} floats; the model has ${this.paramCount}`, STATUS.SS_ERR_LENGTH, { argument: 'values' });
    const bad = v.findIndex((x) => !Number.isFinite(x));
    if (bad >= 0)
      throw new SoftscopeError(`${where}: values[${bad}] = ${v[bad]} is not finite`, Number.isNaN(v[bad]) ? STATUS.SS_ERR_NAN : STATUS.SS_ERR_NONFINITE, { argument: 'values', index: bad });
    this.#heap.refresh();
    this.#heap.f32.set(v, this._params >>> 2);
  }

  /** The arena's tensors: [{ name, kind, layer, offset, rows, cols }] (offset in floats; kind: embedding, matrix, gain,
   *  bias or normalizer, C's ss_tensor_kind). */
  tensors() {
    const where = 'model.tensors', ss = this.#ss;
    this.#live(where);
    const t = new Struct(this.#heap, layouts(ss).ss_model_tensor);
    try {
      const out = [];
      for (let i = 0; i < this._tensorCount; i++) {
        const s = ss.exports.ss_model_tensor_at(this._cfg.ptr, i, t.ptr);
        if (s !== 0) throw ss._fail(where, s, []);
        out.push({ name: ss._cString(t.getU32('name')), kind: ss.enums.tensor_kind[t.getU32('kind')], layer: t.getU32('layer'), offset: t.getU32('offset'), rows: t.getU32('rows'), cols: t.getU32('cols') });
      }
      return out;
    } finally {
      this.#heap.free(t.ptr);
    }
  }

  /** Give the model's memory back; any later call throws. */
  free() {
    if (this.#freed) return;
    this.#freed = true;
    for (const p of this.#blocks) this.#heap.free(p);
    this.#blocks = [];
  }

  get freed() {
    return this.#freed;
  }
}

/** ss_grammar_text's English-like corpus (core/src/model/grammar.c): `chars` characters under `seed` (the same text in
 *  every build). */
export function grammarText(ss, chars, seed = 0) {
  const where = 'softscope.grammarText';
  if (!(ss instanceof Softscope))
    throw new SoftscopeTypeError(`${where}: ss must be a softscope instance from createSoftscope() (got ${describe(ss)})`, { argument: 'ss' });
  if (!Number.isInteger(chars) || chars < 1 || chars > ss.maxN)
    throw new SoftscopeError(`${where}: chars = ${describe(chars)} must be an integer in [1, ${ss.maxN}]`, STATUS.SS_ERR_PARAM_RANGE, { argument: 'chars' });
  if (!(Number.isInteger(seed) && seed >= 0 && seed <= 2 ** 53) && !(typeof seed === 'bigint' && seed >= 0n && seed < 2n ** 64n))
    throw new SoftscopeError(`${where}: seed = ${describe(seed)} must be an integer in [0, 2^53] (or a bigint < 2^64)`, STATUS.SS_ERR_PARAM_RANGE, { argument: 'seed' });
  const n = chars, s = BigInt(seed);
  return ss._call(() => {
    const p = ss._scratch.get('grammar', n);
    const st = ss.exports.ss_grammar_text(s, p, n);
    if (st !== 0) throw ss._fail(where, st, []);
    ss._heap.refresh();
    let out = '';
    const bytes = ss._heap.u8.subarray(p, p + n);
    for (let i = 0; i < n; i += 8192) out += String.fromCharCode.apply(null, bytes.subarray(i, Math.min(n, i + 8192)));
    return out;
  }, []);
}

// A test batch's arrays (tokens_a, tokens_b, feature, target) in scratch.
function testArrays(ss, examples, n) {
  const items = examples * n * 4;
  return { a: ss._scratch.get('model-a', items), b: ss._scratch.get('model-b', items), f: ss._scratch.get('model-f', items), t: ss._scratch.get('model-t', items) };
}

// options.trainN: n or [lo, hi], integers with 2 <= lo <= hi <= max.
function nRange(v, max, where, min = 2) {
  const r = typeof v === 'number' ? [v, v] : Array.isArray(v) && v.length === 2 ? [v[0], v[1]] : null;
  if (!r || !r.every((x) => Number.isInteger(x) && x >= min && x <= max) || r[0] > r[1])
    throw new SoftscopeError(`${where}: options.trainN = ${Array.isArray(v) ? `[${v}]` : describe(v)} must be n or [lo, hi], integers with ${min} <= lo <= hi <= ${max}`,
      STATUS.SS_ERR_PARAM_RANGE, { argument: 'options.trainN' });
  return r;
}
