// Seeded pseudo-random numbers for the presets: the same (preset, n, seed)
// always gives the same logits, so a URL reproduces a picture exactly.

/** mulberry32: a small 32-bit generator, good enough for pictures. */
export function rng(seed) {
  let a = (seed >>> 0) ^ 0x9e3779b9;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296; // [0, 1)
  };
}

/** Standard normal draws (Box–Muller) from a uniform generator. */
export function normal(next) {
  let u = 0;
  while (u === 0) u = next(); // log(0) would be -Inf
  const v = next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
