// Attention with softscope from Node: the copy-task example through scaled
// dot-product attention with softmax and with sparsemax, the row measures,
// and how far Performer's random features are from exact softmax attention.
//   node examples/node-attention.js
import { createSoftscope } from 'softscope';
import { attentionExample } from '../wasm/analysis/attention-examples.js';

const ss = await createSoftscope();
const ex = attentionExample('copy', 33, 1);
const { n, d } = ex;
const soft = ss.attend('sdpa', ex, { scale: 1 }, { normalizer: 'softmax', attention: true });
const sparse = ss.attend('sdpa', ex, { scale: 1 }, { normalizer: 'sparsemax', attention: true });
const mSoft = ss.attentionMeasures(soft.attention, 1, n, n).rows, mSparse = ss.attentionMeasures(sparse.attention, 1, n, n).rows;
const mean = (r, c) => r.filter((_, t) => t % 4 === c).reduce((a, b) => a + b, 0) / n;
console.log(`copy task, n = ${n}, d = ${d} (${ss.impl})`);
console.log(`softmax:   mean entropy ${mean(mSoft, 0).toFixed(3)} nats, exact zeros ${(100 * mean(mSoft, 1)).toFixed(1)}%`);
console.log(`sparsemax: mean entropy ${mean(mSparse, 0).toFixed(3)} nats, exact zeros ${(100 * mean(mSparse, 1)).toFixed(1)}%`);

// The copy rows put their largest weight on the position they copy.
let hits = 0, copies = 0;
for (let i = 0; i < n; i++) {
  const src = ex.copyOf(i);
  if (src < 0) continue;
  copies++;
  const row = soft.attention.subarray(i * n, (i + 1) * n);
  if (row.indexOf(Math.max(...row)) === src) hits++;
}
console.log(`copy rows attending to their source: ${hits} / ${copies}`);

const rnd = attentionExample('random', 64, 3);
const exact = ss.attend('sdpa', rnd, {}).output;
for (const r of [16, 256, 4096]) {
  const approx = ss.attend('performer', rnd, { features: r, seed: 1 }).output;
  let e = 0, s = 0;
  for (let t = 0; t < exact.length; t++) e += (approx[t] - exact[t]) ** 2, s += exact[t] ** 2;
  console.log(`performer, ${r} features: relative error ${Math.sqrt(e / s).toFixed(3)}`);
}

// The example checks itself: every copy row finds its source, softmax has no
// exact zeros, sparsemax has many.
if (hits !== copies || mean(mSoft, 1) !== 0 || mean(mSparse, 1) < 0.5) {
  console.error('unexpected result');
  process.exit(1);
}
