// Error measures of a quantization y of x, shared by the CLI
// (softscope quantize --json) and the playground's quantization panel:
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
