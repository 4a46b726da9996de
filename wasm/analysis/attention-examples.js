// Small attention inputs to look at (the playground's Attention tab, the CLI's
// `attend --example`, examples/node-attention.js): each is
// { name, label, tokens, n, d, q, k, v } with Q, K, V row-major Float32Arrays.
//   sentence  "the cat sat on the mat ." with hand-made 8-dimensional
//             embeddings (determiner, noun, verb, preposition, punctuation,
//             animal, thing, and a position feature); Q = K = V = E, so
//             words attend to words of their kind
//   copy      a synthetic copy task: L symbols, a separator, the L symbols
//             again; each query of the second half points at the key of the
//             position it copies (a shifted diagonal), the first half is noise
//   random    Q, K, V ~ N(0, 1), seeded
// and one with two heads (heads: 2), for the head measures:
//   dormant   head 0 has nothing to attend to: every query is 5 e_0 + noise,
//             every key but the first -5 e_0 + noise, and key 0 (the first
//             token) is the zero vector, so its score 0 is above every
//             other; head 1 is random. Softmax must put the row's mass
//             somewhere (an attention sink on key 0); softpick can give
//             exactly zero weight everywhere (tests/c/test_kurtosis.c).
// Deterministic: the same (name, n, seed) gives the same arrays everywhere.

export const ATTENTION_EXAMPLES = ['sentence', 'copy', 'random'];
export const HEAD_EXAMPLES = ['dormant'];
export const EXAMPLE_N = { min: 4, max: 512 };

function lcg(seed) {
  let s = (seed >>> 0) || 1;
  const u = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) + 0.5) / 2 ** 32;
  return () => Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
}

const SENTENCE = ['the', 'cat', 'sat', 'on', 'the', 'mat', '.'];
// det noun verb prep punct animal thing pos
const EMB = {
  the: [2, 0, 0, 0, 0, 0, 0, 0], cat: [0, 2, 0, 0, 0, 1.5, 0, 0], sat: [0, 0.5, 2, 0, 0, 0.8, 0, 0],
  on: [0, 0, 0.5, 2, 0, 0, 0.5, 0], mat: [0, 2, 0, 0.5, 0, 0, 1.5, 0], '.': [0, 0, 0.5, 0, 2, 0, 0, 0],
};

/** One example; n and seed apply to copy and random (sentence has 7 tokens). */
export function attentionExample(name, n = 64, seed = 1) {
  if (!ATTENTION_EXAMPLES.includes(name) && !HEAD_EXAMPLES.includes(name))
    throw new Error(`unknown attention example "${name}"; known: ${[...ATTENTION_EXAMPLES, ...HEAD_EXAMPLES].join(', ')}`);
  if (name === 'sentence') {
    const d = 8, t = SENTENCE.length, e = new Float32Array(t * d);
    SENTENCE.forEach((w, i) => { EMB[w].forEach((v, c) => { e[i * d + c] = v; }); e[i * d + 7] = (i / (t - 1)) - 0.5; });
    return { name, label: 'a sentence with tiny embeddings', tokens: SENTENCE.slice(), n: t, d, q: e, k: Float32Array.from(e), v: Float32Array.from(e) };
  }
  n = Math.max(EXAMPLE_N.min, Math.min(EXAMPLE_N.max, Math.round(n)));
  const d = 16, g = lcg(seed), q = new Float32Array(n * d), k = new Float32Array(n * d), v = new Float32Array(n * d);
  if (name === 'random') {
    for (let i = 0; i < n * d; i++) q[i] = g(), k[i] = g(), v[i] = g();
    return { name, label: 'random Q, K, V ~ N(0, 1)', tokens: Array.from({ length: n }, (_, i) => String(i)), n, d, q, k, v };
  }
  if (name === 'dormant') {
    const heads = 2, dh = d / heads;
    for (let i = 0; i < n * d; i++) q[i] = 0.5 * g(), k[i] = 0.5 * g(), v[i] = g();
    for (let i = 0; i < n; i++) q[i * d] += 5;
    for (let j = 1; j < n; j++) k[j * d] -= 5;
    k.fill(0, 0, dh);
    return { name, label: 'two heads: head 0 dormant (no key scores above the first token), head 1 random',
      tokens: Array.from({ length: n }, (_, i) => (i === 0 ? 'first' : String(i))), n, d, q, k, v, heads, dormant: [0] };
  }
  // copy: positions 0..L-1 symbols, L the separator, L+1.. the copy
  const L = (n - 1) >> 1, unit = new Float32Array(n * d);
  for (let j = 0; j < n; j++) {
    let s = 0;
    for (let c = 0; c < d; c++) s += (unit[j * d + c] = g()) ** 2;
    for (let c = 0; c < d; c++) unit[j * d + c] /= Math.sqrt(s);
  }
  const symbols = Array.from({ length: L }, () => Math.floor(((g() + 4) / 8) * 26) % 26);
  const tokens = [];
  for (let j = 0; j < n; j++) {
    for (let c = 0; c < d; c++) k[j * d + c] = 3 * unit[j * d + c];
    const src = j > L && j - L - 1 < L ? j - L - 1 : -1;
    for (let c = 0; c < d; c++) q[j * d + c] = src >= 0 ? 3 * unit[src * d + c] : 0.3 * g();
    const sym = j < L ? symbols[j] : src >= 0 ? symbols[src] : -1;
    for (let c = 0; c < d; c++) v[j * d + c] = sym >= 0 && c === sym % d ? 1 : 0;
    tokens.push(j === L ? '|' : sym >= 0 ? String.fromCharCode(97 + sym) : '_');
  }
  return { name, label: 'a copy task: the second half points at the first', tokens, n, d, q, k, v, copyOf: (i) => (i > L && i - L - 1 < L ? i - L - 1 : -1) };
}
