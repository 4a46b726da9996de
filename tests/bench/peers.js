// The libraries a user would otherwise install (devDependencies), wrapped as
// benchmark candidates. Each loader returns null (with the reason logged)
// when the package is missing or fails, so a run without them still works.
//
//   tfjs         @tensorflow/tfjs-core + @tensorflow/tfjs-backend-wasm (XNNPACK
//                kernels, SIMD, no threads): tf.softmax / tf.logSoftmax on a
//                tensor already in its wasm heap, timed without readback; and
//                end to end: tf.tensor1d(x), the op, dataSync().
//   ort-web      onnxruntime-web, wasm backend, one thread: one-node graphs
//                (Softmax, LogSoftmax, TopK) built in onnx-graph.js; a run
//                copies the input in and the output out.
//   ort-node     onnxruntime-node (native MLAS, one intra-op thread): the same
//                graphs, the native reference line.
//   transformers @huggingface/transformers: its softmax / log_softmax (plain JS
//                over the array) and the sampling path of its generate():
//                topk (its ORT TopK op) -> softmax -> a weighted draw.
//   torch        PyTorch eager on one thread (Debian's python3-torch on
//                OpenBLAS, libopenblas0-pthread, one BLAS thread), the
//                training steps only: tests/bench/torch_step.py in a child
//                process (torch-peer.js; Node only), which reports the BLAS
//                it mapped: on the reference BLAS a row gives no ratio.
//   tfjs baby GPT the baby GPT's step in TF.js on the wasm backend
//                (tfjs-babygpt.js; tf.variableGrads + tf.train.adam; the
//                gradients registered by tfjs-gradients.js; Node only).
import { softmaxModel, topkModel } from './onnx-graph.js';

const log = (s) => (typeof process !== 'undefined' && process.stderr ? process.stderr.write(s + '\n') : console.log(s));

async function tryImport(name) {
  try {
    return await import(name);
  } catch (e) {
    log(`peer ${name}: not available (${e.message.split('\n')[0]})`);
    return null;
  }
}

export async function loadPeers() {
  const version = async (pkg) => {
    try {
      const { readFileSync } = await import('node:fs');
      return JSON.parse(readFileSync(new URL(`../../node_modules/${pkg}/package.json`, import.meta.url), 'utf8')).version;
    } catch {
      return null;
    }
  };
  const tf = await tryImport('@tensorflow/tfjs-core');
  const tfWasm = tf && (await tryImport('@tensorflow/tfjs-backend-wasm'));
  const peers = await setupPeers({ tf: tfWasm ? tf : null, ortWeb: await tryImport('onnxruntime-web'), ortNode: await tryImport('onnxruntime-node'),
    transformers: await tryImport('@huggingface/transformers') }, version);
  // PyTorch, for the training step: a child process, run when the training
  // family runs (it fills versions.torch then, or the row notes why not)
  peers.torch = { step: (await import('./torch-peer.js')).torchStep };
  // the baby GPT in TensorFlow.js on the wasm backend (training family)
  if (peers.tfjs) peers.tfjsBabyGpt = async (shape) => {
    try {
      await (await import('./tfjs-gradients.js')).registerTfjsGradients(); // Node: tfjs-core's entry registers none
    } catch (e) {
      return { missing: `tfjs-core's gradients did not load (${e.message.split('\n')[0]})` };
    }
    return (await import('./tfjs-babygpt.js')).tfjsBabyGpt(peers.tfjs, shape);
  };
  return peers;
}

/** The peers from their modules (null: missing); version(pkg) reads a
    package's version. Node: loadPeers; a page: bench-browser's page.js with
    the modules the page loaded (tfjs with its wasm backend, onnxruntime-web). */
export async function setupPeers({ tf, ortWeb, ortNode, transformers }, version) {
  const peers = { versions: {} };
  if (tf) {
    try {
      await tf.setBackend('wasm');
      await tf.ready();
      peers.tfjs = tf;
      peers.versions.tfjs = `${await version('@tensorflow/tfjs-backend-wasm')} (wasm backend, simd ${tf.env().getBool('WASM_HAS_SIMD_SUPPORT')}, threads ${tf.env().getBool('WASM_HAS_MULTITHREAD_SUPPORT')})`;
    } catch (e) {
      log(`peer tfjs: ${e.message}`);
    }
  }
  if (ortWeb) {
    ortWeb.env.wasm.numThreads = 1;
    ortWeb.env.logLevel = 'error';
    peers.ortWeb = ortWeb;
    peers.versions['ort-web'] = `${await version('onnxruntime-web')} (wasm backend, 1 thread)`;
  }
  if (ortNode) {
    peers.ortNode = ortNode;
    peers.versions['ort-node'] = `${await version('onnxruntime-node')} (CPU, MLAS, 1 intra-op thread)`;
  }
  if (transformers) {
    peers.transformers = transformers;
    peers.versions.transformers = await version('@huggingface/transformers');
  }
  return peers;
}

// ---- candidates --------------------------------------------------------------
// Each maker returns { fn, out } or null: fn does one call; out() returns the
// last result as an array (for the accuracy report), read after timing.

const TF_OPS = { softmax: 'softmax', log_softmax: 'logSoftmax' };
const ORT_OPS = { softmax: 'Softmax', log_softmax: 'LogSoftmax' };

// shape: [rows, n] for a matrix (the op runs over the last axis), else 1-D.
const tensor = (tf, x, shape) => (shape ? tf.tensor2d(x, shape) : tf.tensor1d(x));

/** tf.softmax on a resident tensor, no readback (the kernel's time). */
export function tfjsKernel(peers, kernel, x, shape) {
  const tf = peers.tfjs, op = TF_OPS[kernel];
  if (!tf || !op) return null;
  const t = tensor(tf, x, shape);
  let last = null;
  return {
    fn: () => {
      if (last) last.dispose();
      last = tf[op](t);
    },
    out: () => last.dataSync(),
    dispose: () => { t.dispose(); if (last) last.dispose(); },
  };
}

/** tf.tensor1d(x) -> op -> dataSync(): what a JS caller pays end to end. */
export function tfjsEndToEnd(peers, kernel, x, shape) {
  const tf = peers.tfjs, op = TF_OPS[kernel];
  if (!tf || !op) return null;
  let y = null;
  return {
    fn: () => {
      const t = tensor(tf, x, shape), r = tf[op](t);
      y = r.dataSync();
      t.dispose();
      r.dispose();
    },
    out: () => y,
  };
}

/** tf.matMul on resident 2-D tensors, no readback: a (shape as), b (shape
    bs), with transposeA / transposeB as the product needs; `extra`: a
    second product in the same call ([a, as, b, bs, ta, tb]: the backward's
    dx and dw). With `pre`, an operand the product reads transposed is
    transposed once here (tf.transpose, outside the timing) and passed
    without the flag: tfjs-backend-wasm 4.22's BatchMatMul hands XNNPACK
    only the product without transposes, and runs a plain loop for the
    others. out() reads the first result back. */
export function tfjsMatMul(peers, first, extra, pre = false) {
  const tf = peers.tfjs;
  if (!tf) return null;
  const made = [];
  const keep = (t) => (made.push(t), t);
  const prep = ([a, as, b, bs, ta, tb]) => {
    let A = keep(tf.tensor2d(a, as)), B = keep(tf.tensor2d(b, bs));
    if (pre && ta) A = keep(tf.transpose(A));
    if (pre && tb) B = keep(tf.transpose(B));
    return [A, B, pre ? false : ta, pre ? false : tb];
  };
  const ops = [prep(first), ...(extra ? [prep(extra)] : [])];
  let last = [];
  return {
    fn: () => {
      for (const t of last) t.dispose();
      last = ops.map(([A, B, ta, tb]) => tf.matMul(A, B, ta, tb));
    },
    out: () => last[0].dataSync(),
    dispose: () => { for (const t of [...made, ...last]) t.dispose(); },
  };
}

const sessions = new Map();
async function session(ort, bytes, opts, key) {
  if (!sessions.has(key)) sessions.set(key, await ort.InferenceSession.create(bytes, opts));
  return sessions.get(key);
}
const ORT_OPTS = {
  web: { executionProviders: ['wasm'], graphOptimizationLevel: 'all' },
  node: { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' },
};

/** onnxruntime-web / -node: Softmax or LogSoftmax over [rows, n] (rows 1: one vector). */
export async function ortSoftmax(peers, which, kernel, x, rows = 1) {
  const ort = which === 'web' ? peers.ortWeb : peers.ortNode, op = ORT_OPS[kernel];
  if (!ort || !op) return null;
  const n = x.length / rows;
  const s = await session(ort, softmaxModel(op, n, rows), ORT_OPTS[which], `${which}:${op}:${rows}x${n}`);
  const feeds = { x: new ort.Tensor('float32', x, [rows, n]) };
  let y = null;
  return {
    fn: async () => { y = (await s.run(feeds)).y; },
    out: () => y.data,
  };
}

/** onnxruntime TopK(k) over [1, n], then softmax over the k values and a
    draw: top-k sampling as one writes it on onnxruntime. */
export async function ortTopKSample(peers, which, x, k) {
  const ort = which === 'web' ? peers.ortWeb : peers.ortNode;
  if (!ort) return null;
  const n = x.length;
  const s = await session(ort, topkModel(n, k), ORT_OPTS[which], `${which}:topk:${n}:${k}`);
  const feeds = { x: new ort.Tensor('float32', x, [1, n]) };
  let pick = -1;
  return {
    fn: async () => {
      const r = await s.run(feeds);
      pick = Number(r.indices.data[drawFromLogits(r.values.data)]);
    },
    out: () => [pick],
  };
}

// softmax of logits v, then one inverse-CDF draw (Math.random)
function drawFromLogits(v) {
  let m = -Infinity;
  for (let i = 0; i < v.length; i++) m = v[i] > m ? v[i] : m;
  const p = new Float64Array(v.length);
  let s = 0;
  for (let i = 0; i < v.length; i++) s += p[i] = Math.exp(v[i] - m);
  let u = Math.random() * s;
  for (let i = 0; i < v.length; i++) if ((u -= p[i]) < 0) return i;
  return v.length - 1;
}

/** transformers.js's softmax / log_softmax (utils/maths.js): plain JS. */
export function transformersNormalize(peers, kernel, x) {
  const tr = peers.transformers, f = tr && { softmax: tr.softmax, log_softmax: tr.log_softmax }[kernel];
  if (!f) return null;
  let y = null;
  return { fn: () => { y = f(x); }, out: () => y };
}

// One row of transformers.js's MultinomialSampler.sample
// (src/generation/logits_sampler.js, 4.3.2): topk(logits, k) -- its ORT
// TopK op (utils/tensor.js topk, ops/registry.js top_k) --, softmax of the
// k values (utils/maths.js softmax) and randomSelect, i.e.
// _weightedIndex (utils/random.js: a linear scan driven by random.random,
// its Mersenne Twister; written out here since the package does not export
// it). The sampler is not exported either: this is its body. Returns the
// token id.
async function transformersRow(tr, logs, k) {
  const [v, i] = await tr.topk(logs, k);
  const p = tr.softmax(v.data);
  let s = 0;
  for (let j = 0; j < p.length; j++) s += p[j];
  let u = tr.random.random() * s, j = 0;
  for (; j < p.length - 1; j++) if ((u -= p[j]) < 0) break;
  return i.data[j];
}

/** The sampling step of transformers.js's generate() with do_sample: its
    MultinomialSampler takes topk(logits, k) (k = top_k, 0 = the whole
    vocabulary; the TopK runs on onnxruntime), softmax of those values and a
    weighted draw. Its TopPLogitsWarper has no _call and generate() does not
    apply top_p (4.3.2: _get_logits_processor leaves it commented out): this
    is the path a top_p = 0.9 request takes with top_k: 0 (with the default
    top_k = 50 it is topk(50) instead, and the draw is not top-p's). */
export function transformersSample(peers, x, k) {
  const tr = peers.transformers;
  if (!tr?.topk || !tr.Tensor || !tr.random) return null;
  const t = new tr.Tensor('float32', x, [1, x.length]);
  let pick = -1;
  return {
    fn: async () => { pick = Number(await transformersRow(tr, t, k || x.length)); },
    out: () => [pick],
  };
}

/** The same step over a batch, as generate() runs it
    (src/models/modeling_utils.js, generate(): "Loop over each batch"): on
    next_tokens_scores, the [rows, n] logits, each row next_tokens_scores[r]
    (Tensor's index proxy: _getitem -> _subarray, a view) goes through the
    sampler, one row after another. The copy generate() makes before
    (outputs.logits.slice(null, -1, null).to('float32')) is left out. */
export function transformersSampleRows(peers, x, rows, k) {
  const tr = peers.transformers;
  if (!tr?.topk || !tr.Tensor || !tr.random) return null;
  const n = x.length / rows, t = new tr.Tensor('float32', x, [rows, n]);
  const picks = new Array(rows).fill(-1);
  return {
    fn: async () => {
      for (let r = 0; r < t.dims[0]; r++) picks[r] = Number(await transformersRow(tr, t[r], k || n));
    },
    out: () => picks,
  };
}
