// Error measures of a quantization y of x, shared by the CLI
// (softscope quantize --json) and the playground's quantization panel
// (and a layer's reconstruction error, layerErrors):
// mse, max_error, sqnr_db (10 log10 |x|^2 / |y - x|^2; null when y = x) and,
// when x is a probability vector, kl = KL(x || y / sum y) (null when y drops
// an entry x has) and argmax_kept.
export function quantMetrics(x, y) {
  let se = 0, maxErr = 0, sig = 0;
  for (let i = 0; i < x.length; i++) {
    const d = y[i] - x[i];
    se += d * d;
    sig += x[i] * x[i];
    maxErr = Math.max(maxErr, Math.abs(d));
  }
  const m = { mse: se / x.length, max_error: maxErr, sqnr_db: se === 0 ? null : 10 * Math.log10(sig / se) };
  let sx = 0;
  for (const v of x) sx += v;
  if (x.every((v) => v >= 0) && Math.abs(sx - 1) < 1e-3) {
    let sy = 0, kl = 0, ax = 0, ay = 0;
    for (const v of y) sy += Math.max(v, 0);
    for (let i = 0; i < x.length; i++) {
      if (x[i] > x[ax]) ax = i;
      if (y[i] > y[ay]) ay = i;
      if (x[i] > 0) kl = y[i] > 0 && kl !== null ? kl + x[i] * Math.log(x[i] / (y[i] / sy)) : null;
    }
    m.kl = kl;
    m.argmax_kept = ax === ay;
  }
  return m;
}

/**
 * |W X - Wq X|_F^2 in float64 of a layer w read as rows of `cols` weights
 * (a shorter last row reads the first inputs, as the adaround kernel does)
 * with calibration inputs x (cols x batch, row-major).
 */
export function layerErrors(w, wq, x, cols, batch) {
  let e = 0;
  for (let r = 0; r * cols < w.length; r++) {
    const c = Math.min(cols, w.length - r * cols);
    for (let b = 0; b < batch; b++) {
      let s = 0;
      for (let k = 0; k < c; k++) s += (w[r * cols + k] - wq[r * cols + k]) * x[k * batch + b];
      e += s * s;
    }
  }
  return e;
}
