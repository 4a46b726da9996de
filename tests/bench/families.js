// What the benchmark runs, family by family, driven by the registry: every
// kernel of a family is timed in each softscope build (relaxed SIMD, SIMD128,
// scalar; raw exports on wasm-resident buffers, raw.js) with its registry
// defaults, next to the peers and plain JavaScript that do the same job
// (peers.js, plain-js*.js). Nothing here lists a family's kernels; the peers
// attach to the kernels they implement.
//
// A family spec: sizes (full / quick), unit of the report, inputs(n), and
// candidates(ctx, kernel, n, input) -> [{ id, fn, out? }]; `out` gives the
// last result for the accuracy report (normalizers), against the spec's
// reference(kernel, input): the kernel's own float64 reference
// (wasm/analysis/reference.js), or null (no error reported).
// sizes(kernel, quick, override): override is the run's --sizes.
// Engine-neutral: run.js runs these in Node (bench.js) and in a Chromium
// page (bench-browser.js), where the peers are the ones that load there.
import { memcpyCandidates } from './memcpy.js';
import * as P from './peers.js';
import { jsVariants, fillUniform } from './plain-js.js';
import { samplerJs, lmLogits } from './plain-js-samplers.js';
import { int8Js, pow2Js, fp8E4M3Js, weights } from './plain-js-quantizers.js';
import { adamJs, adabeliefJs, lionJs, sageJs } from './plain-js-optimizers.js';
import { sdpaJs } from './plain-js-attention.js';
import { NORMALIZER_REFERENCES } from '../../wasm/analysis/reference.js';
import { createModel } from '../../wasm/api/index.js';
import { blasName, onReferenceBlas } from './torch-blas.js';
import { normalizeCall, normalizeRowsCall, sampleCall, sampleRowsCall, quantizeCall, optimizeCall, measureCall, lossCall, attendCall, thresholdCall,
  linearCall, linearBackwardCall } from './raw.js';
import { peakLoops, peakFlops, PEAK_LOOP } from './peak.js';

export const ENGINES = ['relaxed', 'simd', 'scalar'];
const HEADLINE = [1024, 8192, 65536, 1 << 20, 1 << 22]; // the issue's sizes (scripts/bench/targets.js)

// Per build, resident copies of an input (cached per family and n).
function resident(ctx, key, arrays) {
  ctx.resident ??= new Map();
  const k = `${ctx.family}:${key}`;
  if (!ctx.resident.has(k)) {
    for (const old of ctx.resident.keys()) if (old.startsWith(`${ctx.family}:`)) freeResident(ctx, old);
    const per = {};
    for (const [label, b] of Object.entries(ctx.builds))
      per[label] = Object.fromEntries(Object.entries(arrays).map(([name, a]) => [name, b.floats(a.length, a)]));
    ctx.resident.set(k, per);
  }
  return ctx.resident.get(k);
}
/** Frees a family's resident inputs (run.js, after the family). */
export function release(ctx) {
  for (const k of [...(ctx.resident?.keys() ?? [])]) freeResident(ctx, k);
}
function freeResident(ctx, k) {
  for (const bufs of Object.values(ctx.resident.get(k))) for (const b of Object.values(bufs)) b.free();
  ctx.resident.delete(k);
}

/** The three builds of one raw call, as candidates. */
function buildCands(ctx, make) {
  return Object.entries(ctx.builds).map(([label, b]) => {
    const r = make(b, label);
    return r && { id: label, engine: label, ...r };
  }).filter(Boolean);
}

// ---- normalizers ---------------------------------------------------------------

const JS_NORM = new Set(Object.keys(jsVariants));
const MEMORY_BOUND = new Set(['softmax', 'log_softmax', 'two_pass_softmax', 'online_softmax']);
const N24 = 1 << 24;

const normalizer = {
  family: 'normalizer',
  title: 'normalizers',
  unit: 'ns per element',
  inputText: 'logits uniform in [-10, 10), splitmix64 seed 0x50f75c09e',
  // The softmax family (and the kernels the issue compares with peers) at
  // the four sizes of the targets; every other normalizer at two.
  // The memory-bound rows (the out-of-cache targets) also at 2^24: 64 MB in
  // and 64 MB out, past this machine's 32 MB L3 (2^22 may still sit in it).
  sizes: (k, quick, override) => override ?? (JS_NORM.has(k) || k === 'softmax_temperature' ? [...HEADLINE, ...(!quick && MEMORY_BOUND.has(k) ? [N24] : [])]
    : quick ? [65536] : [65536, 1 << 20]),
  headline: 1 << 20,
  rounds: 11, // the targets' rows: more rounds for a steadier median
  bytes: (n) => 8 * n, // x read, y written
  params: (k) => (k === 'softmax_temperature' ? { temperature: 0.37 } : {}),
  input: (n) => ({ x: fillUniform(n, 0x50f75c09e, -10, 10) }),
  reference: (k, inp) => NORMALIZER_REFERENCES[k]?.(inp.x, normalizer.params(k)) ?? null,
  async candidates(ctx, k, n, inp) {
    const res = resident(ctx, `${n}`, { x: inp.x, y: new Float32Array(n) });
    const over = normalizer.params(k);
    const cands = buildCands(ctx, (b, l) => (n >= N24 && l === 'scalar' ? null : {
      fn: normalizeCall(b, k, over, res[l].x, res[l].y, n),
      out: () => res[l].y.view(),
    }));
    if (n >= N24) { // the DRAM row: the SIMD builds against the memcpy lines only
      if (k === 'softmax') {
        const m = memcpyCandidates(n);
        cands.push({ id: 'memcpy wasm', engine: 'memcpy', fn: m.wasm }, { id: 'memcpy native', engine: 'memcpy', fn: m.native });
      }
      return cands;
    }
    if (JS_NORM.has(k)) {
      const y = new Float32Array(n), f = jsVariants[k];
      cands.push({ id: 'js', engine: 'js', fn: () => f(inp.x, y), out: () => y });
    }
    if (k === 'softmax' || k === 'log_softmax') {
      // the public API, copies included, on the build impl 'auto' loads
      // where the engine validates relaxed SIMD (Chromium; Node 22)
      const ss = apiBuild(ctx);
      let y = null;
      cands.push({ id: 'api', engine: 'api', fn: () => { y = ss.normalize(k, inp.x); }, out: () => y });
      // the caller's array (issue 26), once the API takes { out }
      if (apiOptions(ss).out) {
        const out = new Float32Array(n);
        cands.push({ id: 'api out', engine: 'api', fn: () => ss.normalize(k, inp.x, {}, { out }), out: () => out });
      }
      const peers = [
        ['tfjs', P.tfjsKernel(ctx.peers, k, inp.x)],
        ['tfjs+dataSync', P.tfjsEndToEnd(ctx.peers, k, inp.x)],
        ['ort-web', await P.ortSoftmax(ctx.peers, 'web', k, inp.x)],
        ['ort-node', await P.ortSoftmax(ctx.peers, 'node', k, inp.x)],
        ['transformers', P.transformersNormalize(ctx.peers, k, inp.x)],
      ];
      for (const [id, c] of peers) if (c) cands.push({ id, engine: id, ...c });
    }
    if (k === 'softmax') {
      const m = memcpyCandidates(n);
      cands.push({ id: 'memcpy wasm', engine: 'memcpy', fn: m.wasm }, { id: 'memcpy native', engine: 'memcpy', fn: m.native },
        // the floor of any call that returns a new array of n floats
        { id: 'memcpy new array', engine: 'memcpy', fn: () => inp.x.slice() });
    }
    if (k === 'sparsemax' || k === 'entmax15')
      for (const l of ['relaxed', 'simd']) {
        const b = ctx.builds[l];
        if (b) cands.push({ id: `${l} sort`, engine: 'sort', fn: thresholdCall(b, k, 'sort', res[l].x, res[l].y, n), out: () => res[l].y.view() });
      }
    return cands;
  },
};

// ---- rows: one call over a [rows, n] matrix ---------------------------------------

/** What the API's normalize takes as options in this build, probed on a
    tiny input: { rows } (x is rows x n) and { out } (the caller's array). */
export function apiOptions(ss) {
  const probe = (f) => {
    try {
      return f();
    } catch {
      return false;
    }
  };
  return {
    rows: probe(() => ss.normalize('softmax', new Float32Array(4), {}, { rows: 2 })[0] === 0.5),
    out: probe(() => {
      const o = new Float32Array(2);
      return ss.normalize('softmax', new Float32Array(2), {}, { out: o }) === o && o[0] === 0.5;
    }),
  };
}
const apiBuild = (ctx) => (ctx.builds.relaxed ?? ctx.builds.simd ?? ctx.builds.scalar).ss;

const shapeOf = ([r, c]) => ({ n: r * c, rows: r, cols: c, label: `${r}x${c}` });
/** The shapes of a --sizes override ('RxC' entries; numbers are other
    families' sizes), or null. */
function shapesOf(override) {
  const list = (override ?? []).map((s) => /^(\d+)x(\d+)$/.exec(s)).filter(Boolean).map((m) => shapeOf([+m[1], +m[2]]));
  return list.length ? list : null;
}
// the shapes of the issue's rows target: 2^18 elements each
const ROW_SHAPES = [[4096, 64], [512, 512], [64, 4096], [8, 32768]].map(shapeOf);
const rows = {
  family: 'rows',
  title: 'softmax over the rows of a [rows, n] matrix (one call)',
  unit: 'ns per element',
  inputText: 'logits uniform in [-10, 10), splitmix64 seed 0x50f75c09e, row-major',
  headline: null,
  kernels: () => ['softmax'],
  sizes: (k, quick, override) => shapesOf(override) ?? (quick ? [ROW_SHAPES[0], ROW_SHAPES[3]] : ROW_SHAPES),
  skip(ctx) {
    const raw = Object.values(ctx.builds).some((b) => b.ex.ss_normalize_rows), api = apiOptions(apiBuild(ctx));
    return raw || api.rows ? null : 'this build has no rows entry point (ss_normalize_rows) and ss.normalize no { rows } option';
  },
  input: (n) => ({ x: fillUniform(n, 0x50f75c09e, -10, 10) }),
  reference(k, inp, shape) {
    const ref = new Float64Array(shape.n);
    for (let r = 0; r < shape.rows; r++)
      ref.set(NORMALIZER_REFERENCES[k](inp.x.subarray(r * shape.cols, (r + 1) * shape.cols), {}), r * shape.cols);
    return ref;
  },
  async candidates(ctx, k, n, inp, shape) {
    const res = resident(ctx, shape.label, { x: inp.x, y: new Float32Array(n) });
    const cands = buildCands(ctx, (b, l) => {
      const fn = normalizeRowsCall(b, k, {}, res[l].x, res[l].y, shape.rows, shape.cols);
      return fn && { fn, out: () => res[l].y.view() };
    });
    const ss = apiBuild(ctx), api = apiOptions(ss), opt = { rows: shape.rows };
    if (api.rows) {
      let y = null;
      const out = new Float32Array(n);
      cands.push({ id: 'api', engine: 'api', fn: () => { y = ss.normalize(k, inp.x, {}, opt); }, out: () => y });
      if (api.out) cands.push({ id: 'api out', engine: 'api', fn: () => ss.normalize(k, inp.x, {}, { ...opt, out }), out: () => out });
    }
    const peers = [
      ['tfjs', P.tfjsKernel(ctx.peers, k, inp.x, [shape.rows, shape.cols])],
      ['tfjs+dataSync', P.tfjsEndToEnd(ctx.peers, k, inp.x, [shape.rows, shape.cols])],
      ['ort-web', await P.ortSoftmax(ctx.peers, 'web', k, inp.x, shape.rows)],
      ['ort-node', await P.ortSoftmax(ctx.peers, 'node', k, inp.x, shape.rows)],
    ];
    for (const [id, c] of peers) if (c) cands.push({ id, engine: id, ...c });
    return cands;
  },
};

// ---- samplers ------------------------------------------------------------------

const sampler = {
  family: 'sampler',
  title: 'samplers (one draw per call)',
  unit: 'us per call',
  inputText: 'LM-like logits N(0, 2^2), seeded (lmLogits(n, 7)); probability inputs: their softmax; value inputs: 0.1 + |logits|',
  sizes: (k, quick, override) => override ?? (quick ? [262144] : [32768, 131072, 262144]),
  headline: 262144,
  input(n) {
    const x = lmLogits(n, 7);
    let m = -Infinity, s = 0;
    for (const v of x) m = Math.max(m, v);
    const p = Float32Array.from(x, (v) => Math.exp(v - m));
    for (const v of p) s += v;
    return { x, probs: p.map((v) => v / s), values: Float32Array.from(x, (v) => 0.1 + Math.abs(v)) };
  },
  async candidates(ctx, k, n, inp) {
    const res = resident(ctx, `${n}`, { ...inp, p: new Float32Array(n) });
    const over = { top_p: { p: 0.9 }, top_k: { k: 50 }, min_p: { min_p: 0.1 } }[k] ?? {};
    const kind = { logits: 'x', probs: 'probs', values: 'values' }[ctx.builds.simd.kernel(k, 'sampler').info.input];
    const cands = buildCands(ctx, (b, l) => ({ fn: sampleCall(b, k, over, res[l][kind], res[l].p, n) }));
    if (samplerJs[k]) cands.push({ id: 'js', engine: 'js', fn: () => samplerJs[k](inp.x, over) });
    if (k === 'top_p') {
      const t = P.transformersSample(ctx.peers, inp.x, 0);
      if (t) cands.push({ id: 'transformers', engine: 'transformers', ...t });
    }
    if (k === 'top_k') {
      const t = P.transformersSample(ctx.peers, inp.x, 50);
      if (t) cands.push({ id: 'transformers', engine: 'transformers', ...t });
      for (const w of ['web', 'node']) {
        const c = await P.ortTopKSample(ctx.peers, w, inp.x, 50);
        if (c) cands.push({ id: `ort-${w}`, engine: `ort-${w}`, ...c });
      }
    }
    return cands;
  },
};

// ---- batch sampling: top-p over the rows of a [rows, n] batch, one call ------------

/** Whether the API's sample takes { rows } in this build (probed as apiOptions). */
function apiSampleRows(ss) {
  try {
    return ss.sample('top_p', new Float32Array(4), { p: 0.9 }, { rows: 2 }).rows === 2;
  } catch {
    return false;
  }
}
// the issue's target shape: 32 rows of 128k logits (a batch of vocabulary rows)
const BATCH_SHAPES = [[32, 131072]].map(shapeOf);
const TOP_P = { p: 0.9 };
const samplerRows = {
  family: 'sampler_rows',
  title: 'top-p (p = 0.9) over the rows of a [rows, n] batch (one call; row r draws with seed + r)',
  unit: 'us per batch',
  inputText: 'LM-like logits N(0, 2^2), row r = lmLogits(n, 1000 + r), row-major',
  headline: null,
  kernels: () => ['top_p'],
  sizes: (k, quick, override) => shapesOf(override) ?? BATCH_SHAPES,
  skip(ctx) {
    const raw = Object.values(ctx.builds).some((b) => b.ex.ss_sample_rows);
    return raw || apiSampleRows(apiBuild(ctx)) ? null : 'this build has no ss_sample_rows and ss.sample no { rows } option';
  },
  input(n, shape) {
    const x = new Float32Array(n);
    for (let r = 0; r < shape.rows; r++) x.set(lmLogits(shape.cols, 1000 + r), r * shape.cols);
    return { x };
  },
  async candidates(ctx, k, n, inp, shape) {
    const { rows, cols } = shape;
    const res = resident(ctx, shape.label, { x: inp.x, p: new Float32Array(n) });
    const cands = buildCands(ctx, (b, l) => {
      const fn = sampleRowsCall(b, k, TOP_P, res[l].x, res[l].p, rows, cols);
      return fn && { fn };
    });
    const ss = apiBuild(ctx);
    if (apiSampleRows(ss)) cands.push({ id: 'api', engine: 'api', fn: () => ss.sample(k, inp.x, { ...TOP_P, seed: 1 }, { rows }) });
    // sort-based plain JS, row after row
    const js = samplerJs[k];
    if (js) cands.push({ id: 'js', engine: 'js', fn: () => { for (let r = 0; r < rows; r++) js(inp.x.subarray(r * cols, (r + 1) * cols), TOP_P); } });
    // generate()'s batch loop (peers.js): top_k 0 (the whole row, as the
    // sampler table's 256k row) and its default top_k = 50
    for (const [id, topk] of [['transformers', 0], ['transformers k50', 50]]) {
      const t = P.transformersSampleRows(ctx.peers, inp.x, rows, topk);
      if (t) cands.push({ id, engine: 'transformers', ...t });
    }
    return cands;
  },
};

// ---- quantizers ----------------------------------------------------------------

// Plain JS where it matches the kernel at the parameters given here.
const JS_QUANT = {
  uniform: [{ bits: 8, symmetric: 1 }, int8Js],
  pow2: [{ bits: 4 }, (x) => pow2Js(x, 4)],
  fp8_e4m3: [{}, fp8E4M3Js],
};
const quantizer = {
  family: 'quantizer',
  title: 'quantizers (quantize + dequantize)',
  unit: 'ns per value',
  inputText: '|w|, w ~ N(0, 1) seeded: non-negative, in every quantizer\'s domain',
  sizes: (k, quick) => (quick ? [1 << 20] : [1 << 20, 1 << 22]),
  headline: 1 << 20,
  input: (n) => ({ x: Float32Array.from(weights(n, 11), Math.abs) }),
  async candidates(ctx, k, n, inp) {
    const res = resident(ctx, `${n}`, { x: inp.x, y: new Float32Array(n) });
    const [over, js] = JS_QUANT[k] ?? [{}, null];
    const cands = buildCands(ctx, (b, l) => ({ fn: quantizeCall(b, k, over, res[l].x, res[l].y, n) }));
    if (js) cands.push({ id: 'js', engine: 'js', fn: () => js(inp.x) });
    return cands;
  },
};

// ---- optimizers ----------------------------------------------------------------

const JS_OPT = {
  adam: (w, g, s, t) => adamJs(w, g, s, t),
  adamw: (w, g, s, t) => adamJs(w, g, s, t, true),
  adabelief: adabeliefJs,
  lion: lionJs,
  sage: sageJs,
};
const optimizer = {
  family: 'optimizer',
  title: 'optimizers (one update step)',
  unit: 'ns per parameter',
  inputText: 'gradients g ~ N(0, 1), weights |g| / 50, seeded; state from zero',
  // 2^22 (out of cache) for the kernels with a plain-JS row
  sizes: (k, quick) => (quick ? [1 << 20] : JS_OPT[k] ? [65536, 1 << 20, 1 << 22] : [65536, 1 << 20]),
  headline: 1 << 20,
  input(n) {
    const g = weights(n, 5);
    return { g, w: Float32Array.from(g, (v) => Math.abs(v) / 50) };
  },
  async candidates(ctx, k, n, inp) {
    const res = resident(ctx, `${n}`, { w: inp.w, g: inp.g });
    const cands = buildCands(ctx, (b, l) => ({ fn: optimizeCall(b, k, {}, res[l].w, res[l].g, n) }));
    if (JS_OPT[k]) {
      const w = inp.w.slice(), s = { m: new Float32Array(n), v: new Float32Array(n) };
      let t = 0;
      cands.push({ id: 'js', engine: 'js', fn: () => JS_OPT[k](w, inp.g, s, ++t) });
    }
    return cands;
  },
};

// ---- measures and losses ---------------------------------------------------------

const measure = {
  family: 'measure',
  title: 'measures',
  unit: 'ns per element',
  inputText: 'p = softmax of LM-like logits (q: of another draw); logits for logit measures',
  sizes: (k, quick) => (quick ? [1 << 20] : [65536, 1 << 20]),
  headline: 1 << 20,
  input(n) {
    const sm = (x) => {
      let m = -Infinity, s = 0;
      for (const v of x) m = Math.max(m, v);
      const p = Float32Array.from(x, (v) => Math.exp(v - m));
      for (const v of p) s += v;
      return p.map((v) => v / s);
    };
    const x = lmLogits(n, 3);
    return { x, p: sm(x), q: sm(lmLogits(n, 4)) };
  },
  async candidates(ctx, k, n, inp) {
    const res = resident(ctx, `${n}`, inp);
    return buildCands(ctx, (b, l) => {
      const logits = b.kernel(k, 'measure').info.input === 'logits';
      return { fn: measureCall(b, k, {}, logits ? res[l].x : res[l].p, res[l].q, n) };
    });
  },
};

const loss = {
  family: 'loss',
  title: 'losses (value and gradient)',
  unit: 'ns per element',
  inputText: 'logits uniform in [-10, 10), target 0',
  sizes: (k, quick) => (quick ? [1 << 20] : [65536, 1 << 20]),
  headline: 1 << 20,
  input: (n) => ({ x: fillUniform(n, 0x50f75c09e, -10, 10) }),
  async candidates(ctx, k, n, inp) {
    const res = resident(ctx, `${n}`, { x: inp.x, g: new Float32Array(n) });
    return buildCands(ctx, (b, l) => ({ fn: lossCall(b, k, {}, res[l].x, res[l].g, n) }));
  },
};

// ---- attention -------------------------------------------------------------------

const D = 64;
const attention = {
  family: 'attention',
  title: `attention (one head, d = ${D}, Q, K, V of n x ${D}; sdpa with softmax)`,
  unit: 'ms per call',
  inputText: 'Q, K, V uniform in [-1, 1), seeded',
  sizes: (k, quick) => (quick ? [512] : [128, 512, 2048]),
  headline: 2048,
  input(n) {
    let s = 12345;
    const u = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
    return { q: Float32Array.from({ length: n * D }, u), k: Float32Array.from({ length: n * D }, u), v: Float32Array.from({ length: n * D }, u) };
  },
  async candidates(ctx, k, n, inp) {
    const res = resident(ctx, `${n}`, inp);
    const cands = buildCands(ctx, (b, l) => ({ fn: attendCall(b, k, {}, res[l].q, res[l].k, res[l].v, n, D) }));
    if (k === 'sdpa') cands.push({ id: 'js', engine: 'js', fn: () => sdpaJs(inp.q, inp.k, inp.v, n, D) });
    return cands;
  },
};

// ---- training (issues 27 and 35) ----------------------------------------------------

// The default model of issue 27, as tests/bench/torch_step.py builds it:
// max retrieval over n = 64 items (16 values), d = 64, 4 heads, one layer
// with the MLP, no positions, softmax attention, AdamW (registry defaults:
// lr 1e-3, the betas, wd 1e-2), batch 32. One step through createModel
// (wasm/api/model.js): the task's batch (ss_task_batch; torch's batch is
// fixed and untimed, so ours pays a little more), forward, backward, AdamW on
// every tensor (ss_model_step). The PyTorch peer runs the same step in a
// child process (torch-peer.js, Node only), eager, one thread, on OpenBLAS.
export const TRAIN_MODEL = { task: 'max_retrieval', values: 16, d: 64, n: 64, batch: 32, heads: 4, layers: 1, mlp: true, optimizer: 'adamw' };
// Issue 35's language model: nanoGPT's "baby GPT" (4 layers, 4 heads, d 128,
// context 64, batch 12, V = 65: Bigram-Backcopy's 64 tokens and BOS; learned
// positions, pre-LayerNorm with bias, GELU-tanh MLP 4d, no linear biases,
// tied unembedding, loss at every position, causal; AdamW lr 1e-3, beta2
// 0.99, wd 0.1 on embeddings and matrices). ~3.7 GFLOP a step: a step is
// hundreds of ms in wasm, so its row has its own rounds (BABY_GPT_ROUNDS) and
// the relaxed and SIMD128 builds only (scalar: seconds a step). Its peers:
// torch_step.py --model babygpt (child process) and the same model in
// TensorFlow.js on its wasm backend (tfjs-babygpt.js, this process).
export const BABY_GPT = { task: 'bigram_backcopy', values: 64, keys: 3, d: 128, heads: 4, layers: 4, n: 64, batch: 12,
  positions: 'learned', norm: 'layernorm', tied: true, optimizer: 'adamw', optimizerParams: { lr: 1e-3, beta2: 0.99, weight_decay: 0.1 } };
// A candidate's call is STEPS steps (units = STEPS: ms per step). race():
// the first call and two calibration calls warm up (15 steps), then 3 rounds
// of one call each; PyTorch: 5 warm-up steps, then 3 repeats of 10 steps.
export const BABY_GPT_ROUNDS = { steps: 5, settings: { rounds: 3, roundMs: 1, warmupMs: 0, minCalls: 1 }, torch: { steps: 10, warmup: 5 } };
const babyLabel = `baby GPT d${BABY_GPT.d} L${BABY_GPT.layers} n${BABY_GPT.n} b${BABY_GPT.batch}`;
const tinyLabel = `d${TRAIN_MODEL.d} n${TRAIN_MODEL.n} b${TRAIN_MODEL.batch}`;
const isBaby = (shape) => shape?.model === 'babygpt';

/** The wasm memory a fresh instance of build b needs to train the baby GPT:
    memory.buffer.byteLength after createModel and one step (it only grows). */
async function babyGptMemory(b) {
  const ss = await b.fresh?.();
  if (!ss) return null;
  const { n, batch, ...o } = BABY_GPT;
  const model = createModel(ss, { ...o, batch, trainN: n, maxN: n, steps: 1e7, seed: 1 });
  model.step(1);
  const out = { heapBytes: ss.heapStats().heapBytes, paramBytes: model.paramCount * 4, workspaceBytes: model.workspaceBytes };
  model.free();
  return out;
}

const training = {
  family: 'training',
  title: `training step: issue 27's tiny attention model (d = ${TRAIN_MODEL.d}, n = ${TRAIN_MODEL.n}, batch ${TRAIN_MODEL.batch}, one layer, ${TRAIN_MODEL.heads} heads, MLP; AdamW) and issue 35's baby GPT (d ${BABY_GPT.d}, ${BABY_GPT.layers} layers, ${BABY_GPT.heads} heads, context ${BABY_GPT.n}, batch ${BABY_GPT.batch}, V 65; AdamW)`,
  unit: 'ms per step',
  inputText: `${TRAIN_MODEL.task} batches (${TRAIN_MODEL.values} values, seeded); ${BABY_GPT.task} batches (V ${BABY_GPT.values} + BOS, ${BABY_GPT.keys} triggers); a step = batch, forward, backward, AdamW on every tensor`,
  kernels: () => ['step'],
  // a unit is a step (n = 1), so ns_per_elem is ns per step; the baby GPT's
  // call is several steps (units), with its own rounds (run.js: shape.settings)
  sizes: () => [{ n: 1, label: tinyLabel, model: 'tiny' },
    { n: 1, label: babyLabel, model: 'babygpt', units: BABY_GPT_ROUNDS.steps, settings: BABY_GPT_ROUNDS.settings }],
  headline: 1,
  input: () => ({}),
  async candidates(ctx, k, n, inp, shape) {
    if (isBaby(shape)) {
      const { n: len, batch, ...o } = BABY_GPT;
      const options = { ...o, batch, trainN: len, maxN: len, steps: 1e7, seed: 1 };
      const cands = buildCands(ctx, (b, label) => {
        if (label === 'scalar') return null;
        const model = createModel(b.ss, options);
        return {
          fn: () => {
            const r = model.step(BABY_GPT_ROUNDS.steps);
            if (r.diverged) throw new Error(`training: the ${b.label} baby GPT diverged at step ${r.step}`);
          },
          dispose: () => model.free(),
        };
      });
      // TensorFlow.js on its wasm backend, in this process (Node: peers.js)
      if (ctx.peers.tfjsBabyGpt) {
        const t = await ctx.peers.tfjsBabyGpt(BABY_GPT);
        if (t.missing) ctx.notes = { ...ctx.notes, tfjs: `TF.js not measured: ${t.missing}` };
        else cands.push({ id: 'tfjs', engine: 'tfjs', fn: () => t.steps(BABY_GPT_ROUNDS.steps), dispose: () => t.dispose() });
      }
      return cands;
    }
    const { task, values, d, n: len, batch, heads, layers, mlp, optimizer } = TRAIN_MODEL;
    const options = { task, values, d, heads, layers, mlp, batch, optimizer, trainN: [len, len], maxN: len, steps: 1e7, seed: 1 };
    return buildCands(ctx, (b) => {
      const model = createModel(b.ss, options);
      return {
        fn: () => {
          const r = model.step(1);
          if (r.diverged) throw new Error(`training: the ${b.label} model diverged at step ${r.step}`); // a diverged step costs nothing
        },
        dispose: () => model.free(),
      };
    });
  },
  // PyTorch in a child process (Node: peers.js loadPeers; none in a page),
  // its median over as many repeats as our rounds, on the run's clock; the
  // baby GPT's wasm memory, in a fresh instance of each build
  async external(ctx, k, n, inp, shape, st, clock) {
    const out = { results: {}, notes: { ...ctx.notes } };
    delete ctx.notes;
    if (isBaby(shape)) {
      const mem = {};
      for (const [label, b] of Object.entries(ctx.builds)) if (label !== 'scalar') mem[label] = await babyGptMemory(b);
      if (Object.values(mem).some(Boolean)) out.memory = mem;
      out.notes.scalar = 'not timed on this row (seconds a step)';
    }
    if (!ctx.peers.torch) return out;
    // 10 steps a repeat after 5 of warm-up even in a quick run (~2 s): with 3
    // after 2, bench-check's torch ratio swung 3.7x-7.4x between two runs
    const torchShape = isBaby(shape) ? { model: 'babygpt', ...BABY_GPT, classes: BABY_GPT.values + 1 } : { model: 'tiny', ...TRAIN_MODEL, classes: TRAIN_MODEL.values };
    const r = ctx.peers.torch.step(torchShape, isBaby(shape) ? { repeats: st.rounds, ...BABY_GPT_ROUNDS.torch } : { repeats: st.rounds, steps: 10, warmup: 5 });
    if (r.missing) return { ...out, notes: { ...out.notes, torch: `PyTorch not measured: ${r.missing}` } };
    ctx.peers.versions.torch = `${r.version} (${r.python}, eager, ${r.threads} thread${r.threads === 1 ? '' : 's'}${r.blas_kind ? `; BLAS: ${blasName(r)}` : ''})`;
    const cpu = clock === 'cpu';
    const ms = (v) => v * 1e6; // ms per step -> ns per unit (a unit is a step)
    const res = { ns_per_elem: ms(cpu ? r.cpu_ms_per_step : r.ms_per_step), median: ms(cpu ? r.cpu_ms_per_step : r.ms_per_step),
      min: ms(cpu ? r.cpu_min : r.min), max: ms(cpu ? r.cpu_max : r.max), wall_ms_per_step: r.ms_per_step, cpu_ms_per_step: r.cpu_ms_per_step,
      repeats: r.repeats, steps: r.steps, loss: r.loss, child: true, blas: r.blas, sgemm: r.sgemm, blas_kind: r.blas_kind, matmul_gflops: r.matmul_gflops };
    // on netlib's reference BLAS, torch's time is no anchor: timed, shown, no ratio
    if (onReferenceBlas(r)) {
      out.results['torch (reference BLAS)'] = res;
      out.notes.torch = 'PyTorch on the reference BLAS: no ratio';
    } else out.results.torch = res;
    return out;
  },
};

// Issue 35's generation: the baby GPT (untrained: the work does not depend on
// the weights) drawing GEN_TOKENS tokens from BOS with temperature 0.8 through
// createLanguageModel's generate (analysis/language.js: ss_model_decode, a
// cache of keys and values; past the context the window is fed again), against
// PyTorch running nanoGPT's generate (the whole context's forward a token).
export const GEN_TOKENS = 200;
const generation = {
  family: 'generation',
  title: `generation: the baby GPT (d ${BABY_GPT.d}, ${BABY_GPT.layers} layers, context ${BABY_GPT.n}, V 65) drawing ${GEN_TOKENS} tokens at temperature 0.8; softscope with its cache of keys and values, PyTorch as nanoGPT's generate`,
  unit: 'ms per token',
  inputText: `${GEN_TOKENS} tokens from BOS (softscope) or one start token (PyTorch), batch 1`,
  kernels: () => ['generate'],
  sizes: () => [{ n: 1, label: `baby GPT ${GEN_TOKENS} tokens`, model: 'babygpt', units: GEN_TOKENS,
    settings: { rounds: 3, roundMs: 1, warmupMs: 0, minCalls: 1 } }],
  headline: 0,
  input: () => ({}),
  async candidates(ctx) {
    const { createLanguageModel } = await import('../../wasm/analysis/language.js');
    return buildCands(ctx, (b, label) => {
      if (label === 'scalar') return null;
      const lm = createLanguageModel(b.ss, { corpus: 'bigram_backcopy', values: BABY_GPT.values, keys: BABY_GPT.keys, d: BABY_GPT.d,
        heads: BABY_GPT.heads, layers: BABY_GPT.layers, context: BABY_GPT.n, positions: 'learned', norm: 'layernorm', tied: true, steps: 1 });
      let seed = 0;
      return {
        fn: () => lm.generate({ length: GEN_TOKENS, on: ['temperature'], stages: { temperature: 0.8 }, seed: seed++, top: 0 }),
        dispose: () => lm.free(),
      };
    });
  },
  async external(ctx, k, n, inp, shape, st, clock) {
    if (!ctx.peers.torch) return { results: {}, notes: {} };
    const r = ctx.peers.torch.step({ model: 'babygpt', ...BABY_GPT, classes: BABY_GPT.values + 1, generate: GEN_TOKENS },
      { repeats: st.rounds, steps: 1, warmup: 1 });
    if (r.missing) return { results: {}, notes: { torch: `PyTorch not measured: ${r.missing}` } };
    const per = (v) => (v / GEN_TOKENS) * 1e6; // ms per call -> ns per token
    const cpu = clock === 'cpu';
    return { results: { torch: { ns_per_elem: per(cpu ? r.cpu_ms_per_step : r.ms_per_step), median: per(cpu ? r.cpu_ms_per_step : r.ms_per_step),
      min: per(cpu ? r.cpu_min : r.min), max: per(cpu ? r.cpu_max : r.max), child: true, blas_kind: r.blas_kind } }, notes: {} };
  },
};

// ---- matmul (issue 35): the model's products at the baby GPT's shapes ---------------

// A linear layer of the baby GPT on a batch: rows = batch 12 x 64 tokens,
// in = d = 128, out = d (attention's projection) or 4d (the MLP's first
// layer). Its three products (core/src/model/linear.c, one gemm_op):
//   forward   y  = x W^T    M rows, N out, K in    ss_linear (no bias)
//   dx        dx = dy W     M rows, N in,  K out   (inside ss_linear_backward)
//   dw        dw = dy^T x   M out,  N in,  K rows  ss_linear_backward, dx NULL
//   backward  dx and dw, one ss_linear_backward call (what the model runs)
// each 2 rows in out flops (backward twice that). The C API has no dx
// alone: its row's builds are derived, backward's time minus dw's (medians
// of the same rounds; finish() below), tf's is timed. The entry points'
// own passes (finite checks, the overflow bound's absmax) are in the time.
// tfjs: tf.matMul on resident tensors, no dataSync (our results stay in
// wasm memory too): forward matMul(x, W, false, true), dx matMul(dy, W),
// dw matMul(dy, x, true, false) -- transposeA, as tfjs's own matMul
// gradient calls it --, backward both. tfjs xnn: the same products with
// the transposed operand made once (tf.transpose, untimed) and no flag:
// tfjs-backend-wasm 4.22 hands XNNPACK only the untransposed product. The
// peak row: peak.js's loops (no memory access), the FMA loop in the relaxed
// column, the latency-bound mul + add loop in the SIMD column; each row's
// "of peak" is its GFLOP/s over the FMA loop's.
const MM_ROWS = BABY_GPT.batch * BABY_GPT.n, MM_D = BABY_GPT.d;
export const MATMUL_SHAPES = [MM_D, 4 * MM_D].map((out) => ({ n: 2 * MM_ROWS * MM_D * out, rows: MM_ROWS, in: MM_D, out, label: `${MM_ROWS}x${MM_D}x${out}` }));
const PEAK_ITERS = 65536;
const PEAK_SHAPE = { n: peakFlops(PEAK_ITERS), label: `FMA loop (${PEAK_LOOP.accumulators} acc)` };
const MM_KERNELS = ['forward', 'dx', 'dw', 'backward'];
// flops of a kernel's call over the shape's n (2 rows in out)
const mmUnits = (k, shape) => (k === 'backward' ? 2 * shape.n : shape.n);
const matmul = {
  family: 'matmul',
  title: `matrix products of a linear layer at the baby GPT's shapes (rows ${MM_ROWS} = batch ${BABY_GPT.batch} x ${BABY_GPT.n} tokens, in ${MM_D}, out ${MM_D} or ${4 * MM_D}: shape rows x in x out)`,
  unit: 'GFLOP/s',
  inputText: 'x, dy uniform in [-1, 1), W uniform in [-0.1, 0.1), seeded; builds: raw ss_linear / ss_linear_backward on wasm-resident buffers (scalar build not timed: double sums); tfjs: tf.matMul, no readback; dx: backward - dw for the builds',
  headline: null,
  rounds: 11,
  kernels: () => [...MM_KERNELS, 'peak'],
  sizes: (k, quick, override) => (k === 'peak' ? [PEAK_SHAPE] : shapesOf3(override) ?? MATMUL_SHAPES),
  input(n, shape) {
    if (!shape.out) return {};
    let s = 0x3779b9 + shape.out;
    const u = (lo, hi) => lo + ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32) * (hi - lo);
    const { rows, in: inn, out } = shape;
    return { x: Float32Array.from({ length: rows * inn }, () => u(-1, 1)), w: Float32Array.from({ length: out * inn }, () => u(-0.1, 0.1)),
      dy: Float32Array.from({ length: rows * out }, () => u(-1, 1)) };
  },
  async candidates(ctx, k, n, inp, shape) {
    if (k === 'peak') {
      const loops = peakLoops();
      // the FMA loop in the relaxed column (the peak); the mul + add loop, a
      // latency-bound reference, in the SIMD column
      return [['relaxed', loops.fma], ['simd', loops.muladd]].filter(([, f]) => f).map(([id, f]) => ({ id, engine: id, fn: () => f(PEAK_ITERS) }));
    }
    const { rows, in: inn, out } = shape;
    const res = resident(ctx, shape.label, { ...inp, y: new Float32Array(rows * out), dx: new Float32Array(rows * inn), dw: new Float32Array(out * inn) });
    const cands = k === 'dx' ? [] : buildCands(ctx, (b, l) => {
      if (l === 'scalar') return null;
      const r = res[l];
      if (k === 'forward') return { fn: linearCall(b, r.x, rows, inn, r.w, out, r.y) };
      return { fn: linearBackwardCall(b, r.x, rows, inn, r.w, out, r.dy, k === 'backward' ? r.dx : null, r.dw) };
    });
    const fwd = [inp.x, [rows, inn], inp.w, [out, inn], false, true], dx = [inp.dy, [rows, out], inp.w, [out, inn], false, false],
      dw = [inp.dy, [rows, out], inp.x, [rows, inn], true, false];
    const ops = { forward: [fwd], dx: [dx], dw: [dw], backward: [dx, dw] }[k];
    const t = P.tfjsMatMul(ctx.peers, ops[0], ops[1]);
    if (t) cands.push({ id: 'tfjs', engine: 'tfjs', ...t });
    // XNNPACK's product: the transposed operand made once (dx has none)
    const x = k !== 'dx' && P.tfjsMatMul(ctx.peers, ops[0], ops[1], true);
    if (x) cands.push({ id: 'tfjs xnn', engine: 'tfjs', ...x });
    return cands;
  },
  units: mmUnits,
  // dx for the builds (backward - dw) and each row's fraction of the FMA
  // loop's GFLOP/s (the peak row's relaxed column)
  finish(rows) {
    for (const r of rows.filter((x) => x.kernel === 'dx')) {
      const b = rows.find((x) => x.kernel === 'backward' && x.shape === r.shape), w = rows.find((x) => x.kernel === 'dw' && x.shape === r.shape);
      for (const id of ['relaxed', 'simd']) {
        const tb = b?.results[id], tw = w?.results[id];
        if (!tb || !tw) continue;
        // per flop: backward's call is 2n flops, dw's n, so dx's time per flop is 2 t_b - t_w
        const d = (key) => 2 * tb[key] - tw[key];
        r.results[id] = { ns_per_elem: d('ns_per_elem'), median: d('median'), derived: 'backward - dw' };
      }
      if (r.results.relaxed || r.results.simd) r.notes = { ...r.notes, builds: 'dx = backward - dw (the C API has no dx alone)' };
    }
    const peak = rows.find((x) => x.kernel === 'peak')?.results.relaxed?.ns_per_elem;
    if (peak) for (const r of rows) r.ofPeak = Object.fromEntries(Object.entries(r.results).map(([id, v]) => [id, peak / v.ns_per_elem]));
  },
};
// a --sizes override's 'RxIxO' entries (rows x in x out), or null
function shapesOf3(override) {
  const list = (override ?? []).map((v) => /^(\d+)x(\d+)x(\d+)$/.exec(v)).filter(Boolean)
    .map(([, r, i, o]) => ({ n: 2 * r * i * o, rows: +r, in: +i, out: +o, label: `${r}x${i}x${o}` }));
  return list.length ? list : null;
}

export const FAMILIES = { normalizer, rows, sampler, sampler_rows: samplerRows, quantizer, optimizer, measure, loss, attention, training, generation, matmul };
