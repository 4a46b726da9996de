// The tiny attention model through the JS API (ss.model, wasm/api/model.js),
// in every wasm build: the struct layouts and enums it reads from the module
// match the C declarations' field lists; a seeded run learns max_retrieval
// and reruns bit-identically; the builds agree on the first losses; the
// evaluation's measures are in their ranges; the gradient of ss_model_grad
// agrees with central differences of the forward loss; bad options throw
// naming the option; a freed model throws. (Every backward against float64
// references and finite differences: the C suite, tests/c/test_model*.c.)
import { describe, it, expect, beforeAll } from 'vitest';
import { createModel } from 'softscope';
import { BUILDS, loadBuilds } from './support/builds.js';

let ss;
beforeAll(async () => {
  ss = await loadBuilds();
});

// A small model that learns max_retrieval fast.
const SMALL = { task: 'max_retrieval', values: 8, d: 32, heads: 2, layers: 1, mlp: true, seed: 1,
  optimizer: 'adamw', optimizerParams: { lr: 1e-2, weight_decay: 0 }, schedule: 'cosine', steps: 200, batch: 32, trainN: [4, 16] };

// Run a model for `steps` steps: the losses, the last step, the final params.
function train(s, options, steps) {
  const m = createModel(s, options);
  try {
    const losses = [];
    let last;
    for (let i = 0; i < steps; i++) {
      last = m.step();
      losses.push(last.loss);
    }
    return { losses, last, params: m.params(), evaluation: m.evaluate({ n: 16, examples: 256 }) };
  } finally {
    m.free();
  }
}

describe('ss.model: the C structs as the module reports them', () => {
  // The field lists of core/include/softscope.h, in declaration order.
  const FIELDS = {
    ss_model_config: ['vocab_a', 'vocab_b', 'classes', 'd', 'heads', 'layers', 'mlp', 'positions', 'max_n', 'causal',
      'train_norm_params', 'feature', 'norm', 'tied', 'loss_at', 'seed', 'attention', 'normalizer', 'norm_params', 'norm_nparams',
      'loss', 'loss_params', 'loss_nparams'],
    ss_model_tensor: ['name', 'kind', 'layer', 'offset', 'rows', 'cols', 'init_std'],
    ss_model_batch: ['batch', 'n', 'tokens_a', 'tokens_b', 'feature', 'target'],
    ss_model_outputs: ['loss', 'accuracy', 'pred', 'logits', 'query_attn', 'maps', 'map_example', 'position_loss', 'hidden', 'values'],
    ss_model_optim: ['optimizer', 'params', 'nparams', 'schedule', 'total', 'warmup', 'decay', 'min_factor'],
    ss_task: ['kind', 'values', 'keys'],
    ss_task_shape: ['vocab_a', 'vocab_b', 'classes', 'feature', 'loss_at', 'min_n'],
  };
  // wasm32 (ILP32): pointers and size_t 4 bytes, uint64_t and double 8 and 8-aligned.
  const WASM32 = {
    ss_model_config: { size: 104, seed: 64, attention: 72, loss_nparams: 96 },
    ss_model_tensor: { size: 32, cols: 20, init_std: 24 },
    ss_model_batch: { size: 24, target: 20 },
    ss_model_outputs: { size: 48, accuracy: 8, pred: 16, map_example: 32, position_loss: 36, values: 44 },
    ss_model_optim: { size: 48, schedule: 12, total: 16, min_factor: 40 },
    ss_task: { size: 12, keys: 8 },
    ss_task_shape: { size: 24, min_n: 20 },
  };
  it.each(BUILDS)('%s: every field, in order, at its wasm32 offset; the enums by name', (b) => {
    const structs = Object.fromEntries(ss[b]._registry.model_structs.map((s) => [s.name, s]));
    expect(Object.keys(structs).sort()).toEqual(Object.keys(FIELDS).sort());
    for (const [name, fields] of Object.entries(FIELDS)) {
      const s = structs[name];
      expect(Object.keys(s.fields), name).toEqual(fields);
      const offs = fields.map((f) => s.fields[f]);
      for (let i = 1; i < offs.length; i++) expect(offs[i], `${name}.${fields[i]}`).toBeGreaterThan(offs[i - 1]);
      expect(s.size).toBeGreaterThan(offs[offs.length - 1]);
      const { size, ...at } = WASM32[name];
      expect(s.size, name).toBe(size);
      for (const [f, o] of Object.entries(at)) expect(s.fields[f], `${name}.${f}`).toBe(o);
    }
    expect(structs.ss_model_config.limits).toEqual({ max_d: 384, max_heads: 8, max_layers: 8, max_vocab: 65536, max_n: 16384 });
    expect(ss[b].enums.task).toEqual(['max_retrieval', 'kv_retrieval', 'kv_or_none', 'bigram_backcopy']);
    expect(ss[b].enums.task_loss_at).toEqual(['last', 'last', 'last', 'every']);
    expect(ss[b].enums.positions).toEqual(['none', 'sinusoidal', 'learned', 'rope']);
    expect(ss[b].enums.norm).toEqual(['rmsnorm', 'layernorm']);
    expect(ss[b].enums.tensor_kind).toEqual(['embedding', 'matrix', 'gain', 'bias', 'normalizer']);
  });

  it('tensors() lists the arena in the documented order, contiguous, summing to paramCount', () => {
    const m = createModel(ss.simd, { ...SMALL, layers: 2 });
    const t = m.tensors();
    // max_retrieval: one token table and the feature (softscope.h, the task's shape)
    expect(t.map((x) => `${x.name}${x.layer}`)).toEqual(['embed_a0', 'feature0',
      ...[0, 1].flatMap((l) => ['attn_norm', 'wq', 'wk', 'wv', 'wo', 'mlp_norm', 'w1', 'w2'].map((n) => `${n}${l}`)), 'final_norm0', 'unembed0']);
    let at = 0;
    for (const x of t) {
      expect(x.offset).toBe(at);
      at += x.rows * x.cols;
    }
    expect(at).toBe(m.paramCount);
    expect(t.find((x) => x.name === 'embed_a')).toMatchObject({ rows: 9, cols: 32 }); // 8 values + the QUERY token
    expect(t.find((x) => x.name === 'w1')).toMatchObject({ rows: 128, cols: 32 });
    // gains start at 1 (ss_model_init)
    const p = m.params(), g = t.find((x) => x.name === 'final_norm');
    expect(Array.from(p.subarray(g.offset, g.offset + 32))).toEqual(new Array(32).fill(1));
    // kinds (C's ss_tensor_kind): what the init and the weight decay follow
    expect(t.map((x) => x.kind)).toEqual(['embedding', 'embedding',
      ...[0, 1].flatMap(() => ['gain', 'matrix', 'matrix', 'matrix', 'matrix', 'gain', 'matrix', 'matrix']), 'gain', 'matrix']);
    m.free();
  });
});

describe('ss.model: training', () => {
  const runs = {};
  it.each(BUILDS)('%s: 200 seeded steps on max_retrieval reach >= 0.8 accuracy at n = 16 (chance: 1/8), and rerun bit-identically', (b) => {
    const a = train(ss[b], SMALL, 200), again = train(ss[b], SMALL, 200);
    runs[b] = a;
    expect(a.last.step).toBe(200);
    expect(a.evaluation.accuracy).toBeGreaterThanOrEqual(0.8);
    expect(a.losses[199]).toBeLessThan(a.losses[0] / 2);
    expect(again.losses).toEqual(a.losses);
    expect(again.params).toEqual(a.params);
  });

  it('the builds agree on the first 10 losses within 1e-6 relative (measured 2.4e-8: relaxed FMA in linear, SIMD sum order; the runs drift apart later)', () => {
    for (const b of BUILDS) runs[b] ??= train(ss[b], SMALL, 10);
    for (const b of ['simd', 'relaxed'])
      for (let i = 0; i < 10; i++)
        expect(Math.abs(runs[b].losses[i] - runs.scalar.losses[i]), `${b} step ${i + 1}`).toBeLessThanOrEqual(1e-6 * runs.scalar.losses[i]);
  });

  it('the initial weights are the same bits in every build (a seeded draw)', () => {
    const init = {};
    for (const b of BUILDS) {
      const m = createModel(ss[b], SMALL);
      init[b] = m.params();
      m.free();
    }
    for (const b of ['simd', 'relaxed']) expect(Buffer.from(init[b].buffer).equals(Buffer.from(init.scalar.buffer)), b).toBe(true);
  });

  it('a learning rate that blows up gives { diverged: true, step } and stays diverged', () => {
    const m = createModel(ss.simd, { ...SMALL, optimizer: 'sgd', optimizerParams: { lr: 1e6 }, schedule: 'constant' });
    let r;
    for (let i = 0; i < 20 && !r?.diverged; i++) r = m.step();
    expect(r).toMatchObject({ diverged: true });
    expect(r.step).toBeGreaterThanOrEqual(1);
    expect(m.step(5)).toEqual({ diverged: true, step: r.step });
    m.free();
  });
});

describe('ss.model: evaluation', () => {
  it.each(BUILDS)('%s: regress_evaluate_signed_weights: sa_softmax and boltzmann (weights below 0) evaluate to an accuracy and NaN measures (ss.measure("entropy") threw on the negative weight)', (b) => {
    let signed = 0;
    for (const normalizer of ['sa_softmax', 'boltzmann']) {
      const m = createModel(ss[b], { ...SMALL, normalizer });
      m.step(30);
      const e = m.evaluate({ n: 16, examples: 64 });
      expect(e.accuracy).toBeGreaterThanOrEqual(0);
      expect(Number.isFinite(e.loss)).toBe(true);
      const q = m.attentionMap({ n: 16 }).maps;
      if (q.some((x) => x < 0)) {
        signed++;
        for (const k of ['entropy', 'maxWeight', 'support']) expect(e[k].every(Number.isNaN), `${normalizer} ${k}`).toBe(true);
      }
      m.free();
    }
    expect(signed).toBeGreaterThan(0); // the case this guards: a weight below 0 in the test example
  });

  it.each(BUILDS)('%s: regress_model_rejects_a_training_length_its_normalizer_rejects: topk_softmax (k = 5) at trainN [4, 16] is refused by createModel naming options.trainN (it failed at the first step), leaking nothing; k = 4 trains', (b) => {
    const before = ss[b].heapStats().liveAllocations;
    expect(() => createModel(ss[b], { ...SMALL, normalizer: 'topk_softmax' }))
      .toThrow(expect.objectContaining({ argument: 'options.trainN', code: 'SS_ERR_LENGTH', message: expect.stringMatching(/topk_softmax.*n = 4/) }));
    expect(ss[b].heapStats().liveAllocations).toBe(before);
    const m = createModel(ss[b], { ...SMALL, normalizer: 'topk_softmax', normalizerParams: { k: 4 } });
    expect(Number.isFinite(m.step(2).loss)).toBe(true);
    m.free();
  });

  it.each(BUILDS)('%s: regress_evaluate_chunk_past_model_limits: d = 64 at n = 4096 evaluates (the chunk once ignored the 4d of batch n 4d <= maxN: SS_ERR_PARAM_RANGE)', (b) => {
    const m = createModel(ss[b], { ...SMALL, d: 64, heads: 2 });
    const e = m.evaluate({ n: 4096, examples: 128 });
    expect(e.examples).toBe(128);
    expect(e.accuracy).toBeGreaterThanOrEqual(0);
    expect(Number.isFinite(e.loss)).toBe(true);
    m.free();
  });

  it.each(BUILDS)('%s: at n = 16 ... 1024 every measure is finite, entropy in [0, log n], max weight in (0, 1], support in [1, n]', (b) => {
    const m = createModel(ss[b], SMALL);
    m.step(20);
    for (const n of [16, 64, 256, 1024]) {
      const e = m.evaluate({ n, examples: 16 });
      expect(e).toMatchObject({ n, examples: 16 });
      expect(e.accuracy).toBeGreaterThanOrEqual(0);
      expect(e.accuracy).toBeLessThanOrEqual(1);
      expect(Number.isFinite(e.loss)).toBe(true);
      for (let h = 0; h < 2; h++) {
        expect(e.entropy[h]).toBeGreaterThanOrEqual(0);
        expect(e.entropy[h]).toBeLessThanOrEqual(Math.log(n) * (1 + 1e-6));
        expect(e.maxWeight[h]).toBeGreaterThan(0);
        expect(e.maxWeight[h]).toBeLessThanOrEqual(1 + 1e-6);
        expect(e.support[h]).toBeGreaterThanOrEqual(1);
        expect(e.support[h]).toBeLessThanOrEqual(n);
      }
    }
    m.free();
  });

  it('attentionMap: layers x heads x n x n weights whose rows sum to 1 (softmax)', () => {
    const m = createModel(ss.simd, { ...SMALL, layers: 2 });
    const r = m.attentionMap({ n: 12 });
    expect(r).toMatchObject({ layers: 2, heads: 2, n: 12 });
    expect(r.maps.length).toBe(2 * 2 * 12 * 12);
    for (let row = 0; row < 2 * 2 * 12; row++) {
      let s = 0;
      for (let j = 0; j < 12; j++) s += r.maps[row * 12 + j];
      expect(Math.abs(s - 1)).toBeLessThan(1e-5);
    }
    m.free();
  });

  it('the gradient agrees with central differences of the forward loss', () => {
    // In the scalar build. Loss L (mean cross-entropy, ~log 8 at init) is a
    // float32 forward summed in double: its rounding error is about
    // 1e-7 relative, ~2e-7 absolute, so a central difference with step h
    // has a rounding error <= 2 * 2e-7 / (2 h) = 4e-5 at h = 5e-3, and a
    // truncation error h^2 |L'''| / 6, below 1e-5 for |L'''| <= 2.4 (the
    // parameters are O(0.02) at init, the model smooth). Bound: 2e-4 + 1e-2 |g|.
    const m = createModel(ss.scalar, { ...SMALL, normalizer: 'softmax', heads: 2 });
    m.step(5); // away from the init
    const p0 = m.params(), opts = { n: 8, examples: 4, seed: 7 };
    const { loss, grad } = m.gradient(opts);
    expect(m.evaluate({ ...opts }).loss).toBeCloseTo(loss, 12); // the same test batch
    const t = m.tensors(), h = 5e-3;
    let checked = 0;
    for (const name of ['embed_a', 'feature', 'wq', 'wk', 'wv', 'wo', 'w1', 'w2', 'final_norm', 'unembed']) {
      const x = t.find((v) => v.name === name);
      for (const k of [0, Math.floor(x.rows * x.cols / 2), x.rows * x.cols - 1]) {
        const i = x.offset + k, p = Float32Array.from(p0);
        p[i] = p0[i] + h;
        m.setParams(p);
        const up = m.evaluate(opts).loss;
        p[i] = p0[i] - h;
        m.setParams(p);
        const down = m.evaluate(opts).loss;
        const fd = (up - down) / (Math.fround(p0[i] + h) - Math.fround(p0[i] - h));
        expect(Math.abs(fd - grad[i]), `${name}[${k}]: fd ${fd} grad ${grad[i]}`).toBeLessThanOrEqual(2e-4 + 1e-2 * Math.abs(grad[i]));
        checked++;
      }
    }
    m.setParams(p0);
    expect(checked).toBe(30);
    expect(grad.some((g) => g !== 0)).toBe(true);
    m.free();
  });
});

describe('ss.model: bad arguments and memory', () => {
  const bad = [
    [{ d: 1 }, 'options.d'], [{ d: 512 }, 'options.d'], [{ d: 30, heads: 4 }, 'options.heads'], [{ heads: 5 }, 'options.heads'],
    [{ layers: 9 }, 'options.layers'], [{ d: 33, heads: 1, positions: 'sinusoidal' }, 'options.d'], [{ positions: 'alibi' }, 'options.positions'], [{ positions: 'rope', d: 24, heads: 8 }, 'options.heads'],
    [{ task: 'bigram_backcopy', values: 64, keys: 3, causal: false }, 'options.causal'], [{ tied: true }, 'options.tied'],
    [{ task: 'sorting' }, 'options.task'], [{ values: 1 }, 'options.values'], [{ task: 'kv_retrieval', keys: 1 }, 'options.keys'],
    [{ normalizer: 'nope' }, 'options.normalizer'], [{ normalizer: 'sdpa' }, 'options.normalizer'],
    [{ normalizerParams: { nope: 1 } }, 'options.normalizerParams.nope'], [{ optimizer: 'softmax' }, 'options.optimizer'],
    [{ optimizerParams: { lr: -1 } }, 'options.optimizerParams.lr'], [{ schedule: 'linear' }, 'options.schedule'],
    [{ trainN: [1, 4] }, 'options.trainN'], [{ trainN: [8, 4] }, 'options.trainN'], [{ task: 'kv_or_none', trainN: [2, 8] }, 'options.trainN'],
    [{ positions: 'learned', maxN: 8, trainN: [4, 16] }, 'options.trainN'], [{ batch: 0 }, 'options.batch'], [{ seed: -1 }, 'options.seed'],
    [{ colour: 1 }, 'options.colour'], [{ mlp: 2 }, 'options.mlp'],
  ];
  it.each(bad)('%j throws naming %s and leaves no allocation', (o, arg) => {
    const s = ss.simd, before = s.heapStats().liveAllocations;
    let err;
    try {
      createModel(s, { ...SMALL, ...o }).free();
    } catch (e) {
      err = e;
    }
    expect(err, JSON.stringify(o)).toBeInstanceOf(Error);
    expect(err.argument, err.message).toBe(arg);
    expect(err.message).toContain(arg);
    expect(s.heapStats().liveAllocations).toBe(before);
  });

  it('bad call arguments throw naming them', () => {
    const m = createModel(ss.simd, SMALL);
    expect(() => m.step(0)).toThrow(expect.objectContaining({ argument: 'k' }));
    expect(() => m.evaluate({ n: 1 })).toThrow(expect.objectContaining({ argument: 'options.n' }));
    expect(() => m.evaluate({ examples: 0 })).toThrow(expect.objectContaining({ argument: 'options.examples' }));
    expect(() => m.setParams(new Float32Array(3))).toThrow(expect.objectContaining({ argument: 'values' }));
    const p = m.params();
    p[5] = NaN;
    expect(() => m.setParams(p)).toThrow(expect.objectContaining({ argument: 'values', index: 5 }));
    expect(() => m.setParams(Array.from(p))).toThrow(expect.objectContaining({ argument: 'values' }));
    m.free();
  });

  it('free() gives every block back, and a freed model throws', () => {
    const s = ss.simd, before = s.heapStats();
    const m = createModel(s, SMALL);
    expect(s.heapStats().liveBytes - before.liveBytes).toBeGreaterThanOrEqual(m.workspaceBytes + 2 * m.paramCount * 4);
    m.step(2);
    m.free();
    m.free(); // twice: nothing more
    expect(s.heapStats().liveAllocations).toBe(before.liveAllocations);
    expect(s.heapStats().liveBytes).toBe(before.liveBytes);
    for (const call of [() => m.step(), () => m.evaluate(), () => m.attentionMap(), () => m.params(), () => m.tensors(),
      () => m.setParams(new Float32Array(m.paramCount)), () => m.gradient()])
      expect(call).toThrow(/freed/);
  });
});

describe('ss.model: a language-model task (loss at every position)', () => {
  it.each(BUILDS)('%s: bigram_backcopy trains with rotary positions and LayerNorm: the loss falls by a third in 120 steps, every position read', (b) => {
    const m = createModel(ss[b], { task: 'bigram_backcopy', values: 16, keys: 2, d: 32, heads: 2, positions: 'rope', norm: 'layernorm',
      tied: true, optimizer: 'adamw', optimizerParams: { lr: 3e-3 }, schedule: 'cosine', steps: 120, batch: 8, trainN: 32, seed: 3 });
    expect(m.config).toMatchObject({ lossAt: 'every', causal: true, feature: false, vocabA: 17, vocabB: 0, classes: 17, tied: true });
    // tied: no unembed tensor; LayerNorm: a bias after every gain
    expect(m.tensors().map((t) => t.name)).not.toContain('unembed');
    expect(m.tensors().filter((t) => t.kind === 'bias').length).toBe(3);
    const first = m.step(1), last = m.step(119);
    expect(last.step).toBe(120);
    expect(last.loss).toBeLessThan((first.loss * 2) / 3);
    expect(first.loss).toBeGreaterThan(Math.log(17) * 0.9); // near uniform at the start
    const e = m.evaluate({ n: 32, examples: 16 });
    expect(e.loss).toBeLessThan(first.loss);
    expect(e.accuracy).toBeGreaterThan(1 / 17);
    m.free();
  });
});
