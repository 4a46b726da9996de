// One LLM decoding step with softscope from Node: temperature + nucleus
// (top-p) filtering of a next-token logit vector, seeded draws, and the same
// draws again from the same seed.
//   node examples/node-sampling.js
import { createSoftscope } from 'softscope';

const ss = await createSoftscope();
// A long-tailed "vocabulary" of 32000 logits: Zipf-like, -1.1 log(rank).
const n = 32000;
const logits = Float32Array.from({ length: n }, (_, i) => -1.1 * Math.log(i + 1));

const params = { temperature: 0.8, p: 0.9, seed: 42, draws: 8 };
const { probs, indices } = ss.sample('top_p', logits, params);
const kept = probs.reduce((c, v) => c + (v > 0), 0);
console.log(`top_p (${ss.impl}): p = ${params.p}, T = ${params.temperature}: ${kept} of ${n} tokens kept`);
console.log(`8 draws (seed ${params.seed}): ${Array.from(indices).join(' ')}`);

// min-p keeps tokens with p >= min_p * p_max instead.
const mp = ss.sample('min_p', logits, { min_p: 0.05, draws: 0 });
console.log(`min_p = 0.05 keeps ${mp.probs.reduce((c, v) => c + (v > 0), 0)} tokens`);

// The example checks itself: the kept set is a prefix of the ranks (the
// logits decrease), it sums to one, every draw is a kept token, and the same
// seed gives the same draws.
const again = ss.sample('top_p', logits, params).indices;
const sum = probs.reduce((a, b) => a + b, 0);
const prefix = probs.every((v, i) => (v > 0) === (i < kept));
if (Math.abs(sum - 1) > 1e-5 || !prefix || !indices.every((i) => probs[i] > 0) ||
    again.join() !== indices.join()) {
  console.error(`unexpected result: sum ${sum}, prefix ${prefix}, draws ${indices}, again ${again}`);
  process.exit(1);
}
