// softscope from Node: a softmax, its entropy, a temperature sweep, and the
// gradient of the entropy through the softmax (chain rule by hand).
//   node examples/node-softmax.js
import { createSoftscope } from 'softscope';

const ss = await createSoftscope(); // SIMD128 when the engine has it
const x = new Float32Array([2, 1, 0.1, -Infinity]); // the last logit is masked

const y = ss.normalize('softmax', x);
const H = ss.measure('entropy', y);
console.log(`softmax (${ss.impl}): ${Array.from(y, (v) => v.toFixed(6)).join(' ')}`);
console.log(`entropy: ${H.toFixed(6)} nats (max log 3 = ${Math.log(3).toFixed(6)} over the 3 unmasked entries)`);

for (const temperature of [0.5, 1, 2]) {
  const yt = ss.normalize('softmax_temperature', x, { temperature });
  console.log(`T = ${temperature}: entropy ${ss.measure('entropy', yt).toFixed(6)}, max ${ss.measure('max_prob', yt).toFixed(6)}`);
}

// dH/dx = J_softmax(x)^T dH/dy: measureBackward gives dH/dy, normalizeBackward the rest.
// (Entropy's gradient needs p > 0, so this part uses the unmasked logits.)
const xu = x.subarray(0, 3), yu = ss.normalize('softmax', xu);
const dx = ss.normalizeBackward('softmax', xu, yu, ss.measureBackward('entropy', yu));
console.log(`dH/dx: ${Array.from(dx, (v) => v.toFixed(6)).join(' ')}`);

// The example checks itself: a softmax sums to one, the masked entry is 0,
// and the entropy lies in [0, log 3].
const sum = y.reduce((a, b) => a + b, 0);
if (Math.abs(sum - 1) > 1e-6 || y[3] !== 0 || !(H >= 0 && H <= Math.log(3))) {
  console.error(`unexpected result: sum ${sum}, masked ${y[3]}, entropy ${H}`);
  process.exit(1);
}
