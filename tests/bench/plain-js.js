// The normalizers a JavaScript user writes over Float32Arrays -- the "plain
// JS" column of the benchmark (wasm/analysis/plain-js.js) -- plus the input
// generator and the error measure of the accuracy report (its float64
// references are wasm/analysis/reference.js, one per kernel: families.js).

// The plain-JS normalizers live in the package (the Performance view runs them too).
export { softmaxJs, logSoftmaxJs, sparsemaxJs, entmax15Js, jsVariants } from '../../wasm/analysis/plain-js.js';

// splitmix64 -> 53-bit uniform u in [0, 1) -> fround(lo + (hi - lo) * u),
// exactly as bench_fill_uniform in bench_ref.c.
export function fillUniform(n, seed, lo, hi) {
  const M = (1n << 64n) - 1n;
  const x = new Float32Array(n);
  let s = BigInt(seed);
  for (let i = 0; i < n; i++) {
    s = (s + 0x9e3779b97f4a7c15n) & M;
    let z = s;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
    z ^= z >> 31n;
    const u = Number(z >> 11n) * 2 ** -53;
    let v = Math.fround(lo + (hi - lo) * u);
    if (v >= hi) v = lo;
    x[i] = v;
  }
  return x;
}

// Relative error of p over ref >= floor (probabilities below the floor must
// be within floor absolutely: a sparse kernel's zeros must be zeros); for
// log-probabilities the absolute error of log p over exp(ref) >= floor.
export function maxRelErr(y, ref, log, floor = 1e-30) {
  let worst = 0, at = 0;
  const logFloor = Math.log(floor);
  for (let i = 0; i < y.length; i++) {
    let e;
    if (log) {
      if (ref[i] < logFloor) continue;
      e = Math.abs(y[i] - ref[i]);
    } else if (ref[i] < floor) {
      if (!(Math.abs(y[i] - ref[i]) <= floor)) e = Infinity;
      else continue;
    } else {
      e = Math.abs(y[i] - ref[i]) / ref[i];
    }
    if (!(e <= worst)) { worst = Number.isNaN(e) ? Infinity : e; at = i; }
  }
  return { maxRelErr: worst, at };
}
