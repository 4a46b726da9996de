// One optimizer step as a user would write it in plain JavaScript -- the
// "plain JS" column of the optimizer benchmark (run-optimizers.js). Each
// updates w and its state (Float32Arrays) in place; t is the step number.
// Hyperparameters are the registry (PyTorch) defaults.

export function adamJs(w, g, s, t, decoupled = false, lr = 1e-3, b1 = 0.9, b2 = 0.999, eps = 1e-8, wd = decoupled ? 1e-2 : 0) {
  const { m, v } = s, bc1 = 1 - b1 ** t, bc2 = Math.sqrt(1 - b2 ** t);
  for (let i = 0; i < w.length; i++) {
    if (decoupled) w[i] *= 1 - lr * wd;
    const gi = g[i] + (decoupled ? 0 : wd * w[i]);
    m[i] = b1 * m[i] + (1 - b1) * gi;
    v[i] = b2 * v[i] + (1 - b2) * gi * gi;
    w[i] -= (lr / bc1) * m[i] / (Math.sqrt(v[i]) / bc2 + eps);
  }
}

export function adabeliefJs(w, g, s, t, lr = 1e-3, b1 = 0.9, b2 = 0.999, eps = 1e-16) {
  const { m, v } = s, bc1 = 1 - b1 ** t, bc2 = Math.sqrt(1 - b2 ** t);
  for (let i = 0; i < w.length; i++) {
    m[i] = b1 * m[i] + (1 - b1) * g[i];
    const r = g[i] - m[i];
    v[i] = b2 * v[i] + (1 - b2) * r * r + eps;
    w[i] -= (lr / bc1) * m[i] / (Math.sqrt(v[i]) / bc2 + eps);
  }
}

export function lionJs(w, g, s, t, lr = 1e-4, b1 = 0.9, b2 = 0.99) {
  const { m } = s;
  for (let i = 0; i < w.length; i++) {
    w[i] -= lr * Math.sign(b1 * m[i] + (1 - b1) * g[i]);
    m[i] = b2 * m[i] + (1 - b2) * g[i];
  }
}

// Element-wise SAGE (s = |g|): two passes, the RMS statistics then the step.
export function sageJs(w, g, s, t, lr = 1e-4, b1 = 0.9, b2 = 0.99, eps = 1e-8) {
  const { m, v: S } = s, n = w.length, bc2 = 1 - b2 ** t;
  let ss = 0, gg = 0;
  for (let i = 0; i < n; i++) {
    const a = Math.abs(g[i]);
    S[i] = b2 * S[i] + (1 - b2) * a;
    ss += S[i] * S[i], gg += a * a;
  }
  const sigma = Math.sqrt(ss / n) / bc2, gam = Math.sqrt(gg / n);
  for (let i = 0; i < n; i++) {
    const h = Math.min(sigma / (S[i] / bc2 + eps), gam / (Math.abs(g[i]) + eps), 1);
    w[i] -= lr * Math.sign(b1 * m[i] + (1 - b1) * g[i]) * h;
    m[i] = b2 * m[i] + (1 - b2) * g[i];
  }
}
