// Training a tiny softmax classifier with softscope from Node: logits z = W x,
// the cross-entropy loss and its gradient from ss.loss, and AdamW steps from
// ss.optimize on the flattened weights; then the same data with Lion; then a
// 2-D trajectory of the trajectory engine.
//   node examples/node-optimizer.js
import { createSoftscope } from 'softscope';

const ss = await createSoftscope();
const C = 3, D = 4, N = 300;
// Three Gaussian blobs in 4-D (a fixed LCG, so the run is reproducible).
let s = 7;
const u = () => ((s = (s * 1664525 + 1013904223) >>> 0) + 0.5) / 2 ** 32;
const normal = () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
const data = Array.from({ length: N }, (_, i) => {
  const y = i % C;
  return { y, x: Float32Array.from({ length: D }, (_, d) => (d === y ? 2.5 : 0) + normal()) };
});

function train(optimizer, params, epochs) {
  const W = new Float32Array(C * D), state = ss.optimizerState(optimizer, C * D);
  const losses = [];
  for (let e = 0; e < epochs; e++) {
    const g = new Float32Array(C * D);
    let total = 0;
    for (const { x, y } of data) {
      const z = Float32Array.from({ length: C }, (_, c) => x.reduce((a, v, d) => a + W[c * D + d] * v, 0));
      const { loss, grad } = ss.loss('cross_entropy', z, { target: y });
      total += loss / N;
      for (let c = 0; c < C; c++) for (let d = 0; d < D; d++) g[c * D + d] += (grad[c] * x[d]) / N; // dL/dW = dL/dz x^T
    }
    losses.push(total);
    ss.optimize(optimizer, W, g, params, state);
  }
  const acc = data.filter(({ x, y }) => {
    const z = Array.from({ length: C }, (_, c) => x.reduce((a, v, d) => a + W[c * D + d] * v, 0));
    return z.indexOf(Math.max(...z)) === y;
  }).length / N;
  return { losses, acc };
}

const adamw = train('adamw', { lr: 0.05 }, 150);
const lion = train('lion', { lr: 0.01 }, 150);
console.log(`adamw (${ss.impl}): loss ${adamw.losses[0].toFixed(4)} -> ${adamw.losses.at(-1).toFixed(4)}, accuracy ${adamw.acc.toFixed(3)}`);
console.log(`lion: loss ${lion.losses[0].toFixed(4)} -> ${lion.losses.at(-1).toFixed(4)}, accuracy ${lion.acc.toFixed(3)}`);

const r = ss.trajectory({ optimizer: 'ogda', fn: 'bilinear', steps: 2000, params: { lr: 0.1 } });
console.log(`ogda on the bilinear game: ${r.metrics.distance.toExponential(2)} from the equilibrium after ${r.metrics.steps} steps`);

// The example checks itself: the loss starts at ln 3 (W = 0), falls, and
// both optimizers separate the blobs; OGDA reaches the equilibrium.
const ok = Math.abs(adamw.losses[0] - Math.log(3)) < 1e-5 && adamw.losses.at(-1) < 0.3 && lion.losses.at(-1) < 0.3 &&
  adamw.acc > 0.9 && lion.acc > 0.9 && r.metrics.distance < 1e-3;
if (!ok) {
  console.error('unexpected result');
  process.exit(1);
}
