// Goodness of fit of draws against a distribution, for the CLI's sample
// metrics and the sampling panel: Pearson's chi-square with cells of
// expected count < 5 pooled, and its p-value from the regularized upper
// incomplete gamma function Q(dof/2, chi2/2) (series for x < a + 1, Lentz's
// continued fraction otherwise; Numerical Recipes section 6.2).

function logGamma(x) {
  // Lanczos (g = 7, n = 9), |rel err| < 1e-13 for x > 0.
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
    -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  x -= 1;
  let a = c[0];
  const t = x + 7.5;
  for (let i = 1; i < 9; i++) a += c[i] / (x + i);
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
}

/** Q(a, x) = Gamma(a, x) / Gamma(a), the upper regularized incomplete gamma. */
export function gammaQ(a, x) {
  if (!(x > 0)) return 1;
  const lg = a * Math.log(x) - x - logGamma(a);
  if (x < a + 1) {
    let sum = 1 / a, term = sum;
    for (let k = 1; k < 1000; k++) {
      term *= x / (a + k);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-15) break;
    }
    return Math.max(0, 1 - sum * Math.exp(lg));
  }
  const tiny = 1e-300;
  let b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return Math.min(1, Math.exp(lg) * h);
}

/** counts[i] = how often i was drawn. */
export function drawCounts(indices, n) {
  const c = new Float64Array(n);
  for (const i of indices) c[i] += 1;
  return c;
}

/** { chi2, dof, pValue, impossible }: draws vs probs. impossible counts draws
 *  of zero-probability entries (then pValue is 0). dof 0 means too few draws
 *  for a test (every cell pooled into one): pValue is then 1. */
export function chiSquare(indices, probs) {
  const n = probs.length, N = indices.length;
  const counts = drawCounts(indices, n);
  let chi2 = 0, cells = 0, poolE = 0, poolO = 0, impossible = 0;
  for (let i = 0; i < n; i++) {
    const e = probs[i] * N;
    if (probs[i] === 0) { impossible += counts[i]; continue; }
    if (e >= 5) { chi2 += (counts[i] - e) ** 2 / e; cells++; } else { poolE += e; poolO += counts[i]; }
  }
  if (poolE > 0) { chi2 += (poolO - poolE) ** 2 / poolE; cells++; }
  const dof = Math.max(0, cells - 1);
  const pValue = impossible > 0 ? 0 : dof === 0 ? 1 : gammaQ(dof / 2, chi2 / 2);
  return { chi2, dof, pValue, impossible };
}
