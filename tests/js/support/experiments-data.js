// Data in the Experiments view's shape (views/experiments/data-shape.js; the
// figure's tests check it) from real training runs of createModel, for the
// figure's tests: small models (d 16, 2 heads) on
// max_retrieval, training curves as window means, a test set per length,
// the attention map, weights quantized with a registry quantizer. The head
// measures are stand-in numbers (the figure only draws them).
import { createModel } from 'softscope';

const mean = (a) => a.reduce((s, v) => s + v, 0) / a.length;
const fin = (v) => (Number.isFinite(v) ? v : null);

/** One run: { name, ..., curve, lengths, map, heads, quant, floatAccuracy } (options: the model's, steps, every, testN). */
function run(ss, name, { steps, every, testN, trainN, mapN, bits, quantizers, model }) {
  const m = createModel(ss, { task: 'max_retrieval', values: 8, d: 16, heads: 2, layers: 1, mlp: false, seed: 3, normalizer: name,
    trainNormParams: true, optimizer: 'adam', optimizerParams: { lr: 1e-2 }, schedule: 'constant', steps, batch: 16, trainN, ...model });
  try {
    const curve = { step: [], loss: [], accuracy: [] };
    let reached = null, diverged = null, loss = [], acc = [];
    for (let t = 1; t <= steps; t++) {
      const r = m.step();
      if (r.diverged) { diverged = r.step; break; }
      loss.push(r.loss); acc.push(r.accuracy);
      if (loss.length === every || t === steps) {
        curve.step.push(t); curve.loss.push(mean(loss)); curve.accuracy.push(mean(acc));
        if (reached === null && mean(acc) >= 0.95) reached = t;
        loss = []; acc = [];
      }
    }
    const out = { name, normParams: {}, normParamsByLayer: null, step: diverged ?? steps, diverged, error: null, curve, reached, lengths: [], map: null, heads: [], quant: [],
      floatAccuracy: null };
    if (diverged !== null) return out;
    out.lengths = testN.map((n) => {
      const e = m.evaluate({ n, examples: 32 });
      return { n, accuracy: fin(e.accuracy), loss: fin(e.loss), entropy: fin(mean(e.entropy)), maxWeight: fin(mean(e.maxWeight)), support: fin(mean(e.support)),
        entropyHeads: e.entropy.map(fin), maxWeightHeads: e.maxWeight.map(fin), supportHeads: e.support.map(fin) };
    });
    const a = m.attentionMap({ n: mapN });
    out.map = { n: a.n, layers: a.layers, heads: a.heads, maps: Array.from(a.maps) };
    out.heads = Array.from({ length: a.layers * a.heads }, (_, i) => ({ layer: Math.floor(i / a.heads), head: i % a.heads, sinkRate: i % 2 ? 0 : 0.25, sink: false, kurtosis: 3 + i, maxMedian: 0 }));
    const trainMax = trainN[1];
    out.floatAccuracy = m.evaluate({ n: trainMax, examples: 32 }).accuracy;
    const w = m.params();
    for (const q of quantizers) {
      for (const b of bits) {
        // each weight matrix on its own (vectors, the normalizer's parameters among them, stay float)
        const wq = w.slice();
        for (const t of m.tensors()) if (t.rows > 1 && t.cols > 1) wq.set(ss.quantize(q, w.subarray(t.offset, t.offset + t.rows * t.cols), { bits: b }).output, t.offset);
        m.setParams(wq);
        out.quant.push({ quantizer: q, bits: b, accuracy: m.evaluate({ n: trainMax, examples: 32 }).accuracy });
      }
    }
    m.setParams(w);
    return out;
  } finally {
    m.free();
  }
}

/** The view's data for runs of the normalizers (diverge: a normalizer trained with sgd at lr 1e6, which diverges). */
export function experimentsData(ss, { normalizers = ['softmax', 'ssmax'], diverge = null, steps = 80, every = 5, trainN = [4, 8],
  testN = [8, 16, 32, 64], mapN = 8, bits = [2, 4, 8], quantizers = ['uniform'] } = {}) {
  const o = { steps, every, testN, trainN, mapN, bits, quantizers };
  const runs = normalizers.map((name) => run(ss, name, o));
  if (diverge) runs.push(run(ss, diverge, { ...o, model: { optimizer: 'sgd', optimizerParams: { lr: 1e6 } } }));
  return { task: 'max_retrieval', classes: 8, chance: 1 / 8, trainN, testN, steps, every, bits, phase: 'done', progress: 1, sel: 0, runs };
}
