// The decoding samplers a JavaScript user writes over a Float32Array of
// logits -- the "plain JS" column of the sampler benchmark: softmax with
// Math.exp, then an index array sorted by probability (Array.prototype.sort
// with a comparator, as most JS and the Hugging Face warpers do), then the
// filter on the sorted order, renormalization by the kept mass and one draw
// by a linear CDF scan with Math.random(). Gumbel-max: x_i - log(-log u_i)
// with u_i = Math.random(), argmax.

function softmax64(x, t) {
  const n = x.length, p = new Float64Array(n);
  let m = -Infinity;
  for (let i = 0; i < n; i++) if (x[i] / t > m) m = x[i] / t;
  let s = 0;
  for (let i = 0; i < n; i++) { p[i] = Math.exp(x[i] / t - m); s += p[i]; }
  for (let i = 0; i < n; i++) p[i] /= s;
  return p;
}

function sortedByProb(p) {
  const idx = Array.from({ length: p.length }, (_, i) => i);
  idx.sort((a, b) => p[b] - p[a]);
  return idx;
}

// Draw from the first `keep` entries of the sorted order.
function drawPrefix(p, idx, keep) {
  let mass = 0;
  for (let j = 0; j < keep; j++) mass += p[idx[j]];
  let u = Math.random() * mass;
  for (let j = 0; j < keep; j++) {
    u -= p[idx[j]];
    if (u <= 0) return idx[j];
  }
  return idx[keep - 1];
}

export function topKJs(x, { k = 50, temperature = 1 } = {}) {
  const p = softmax64(x, temperature), idx = sortedByProb(p);
  return drawPrefix(p, idx, Math.min(k, p.length));
}

export function topPJs(x, { p: top = 0.9, temperature = 1 } = {}) {
  const p = softmax64(x, temperature), idx = sortedByProb(p);
  let c = 0, keep = 0;
  while (keep < idx.length && c < top) c += p[idx[keep++]];
  return drawPrefix(p, idx, Math.max(1, keep));
}

export function minPJs(x, { min_p = 0.1, temperature = 1 } = {}) {
  const p = softmax64(x, temperature), idx = sortedByProb(p);
  const cut = min_p * p[idx[0]];
  let keep = 0;
  while (keep < idx.length && p[idx[keep]] >= cut) keep++;
  return drawPrefix(p, idx, keep);
}

export function gumbelMaxJs(x) {
  let best = -Infinity, arg = 0;
  for (let i = 0; i < x.length; i++) {
    const v = x[i] - Math.log(-Math.log(Math.random()));
    if (v > best) { best = v; arg = i; }
  }
  return arg;
}

export const samplerJs = { top_k: topKJs, top_p: topPJs, min_p: minPJs, gumbel_max: gumbelMaxJs };

// LM-like logits: N(0, sigma^2) from a seeded Box-Muller (mulberry32 uniforms).
export function lmLogits(n, seed = 1, sigma = 2) {
  let a = seed >>> 0;
  const u = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
  const x = new Float32Array(n);
  for (let i = 0; i < n; i++) x[i] = sigma * Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
  return x;
}
