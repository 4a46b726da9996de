// Scaled dot-product softmax attention as a user would write it in plain
// JavaScript -- the "plain JS" column of the attention benchmark
// (run-attention.js): scores, a max-subtracted softmax per row, then A V.

export function sdpaJs(q, k, v, n, d) {
  const out = new Float32Array(n * d), s = new Float32Array(n), scale = 1 / Math.sqrt(d);
  for (let i = 0; i < n; i++) {
    let mx = -Infinity;
    for (let j = 0; j < n; j++) {
      let t = 0;
      for (let c = 0; c < d; c++) t += q[i * d + c] * k[j * d + c];
      s[j] = t * scale;
      if (s[j] > mx) mx = s[j];
    }
    let z = 0;
    for (let j = 0; j < n; j++) z += s[j] = Math.exp(s[j] - mx);
    for (let j = 0; j < n; j++) {
      const p = s[j] / z;
      for (let c = 0; c < d; c++) out[i * d + c] += p * v[j * d + c];
    }
  }
  return out;
}
