// How the Attention view compares attention calls: an error's reason, the
// mean total-variation distance of two matrices' rows, A V, and the
// relative error of an output. Shared by the maps (model.js), the
// random-feature error maps and the head measures.

/** An error's message without the call it came from ("softscope.attend(...): "). */
export const reason = (e) => String(e?.message ?? e).replace(/^softscope\.[^:]*: /, '');

/** Mean total-variation distance between the rows of two n x m matrices. */
export function meanTv(A, B, n, m) {
  let tot = 0;
  for (let i = 0; i < n; i++) {
    let tv = 0;
    for (let j = 0; j < m; j++) tv += Math.abs(A[i * m + j] - B[i * m + j]);
    tot += tv / 2;
  }
  return tot / n;
}

/** A V for an n x m matrix A and V (m x dv), row-major. */
export function applyWeights(A, V, n, m) {
  const dv = V.length / m, out = new Float64Array(n * dv);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < m; j++) {
      const a = A[i * m + j];
      if (a !== 0) for (let c = 0; c < dv; c++) out[i * dv + c] += a * V[j * dv + c];
    }
  return out;
}

/** ‖out − ref‖ / ‖ref‖ (Frobenius). */
export function relativeError(out, ref) {
  let e = 0, s = 0;
  for (let t = 0; t < out.length; t++) e += (out[t] - ref[t]) ** 2, s += ref[t] ** 2;
  return Math.sqrt(e / (s || 1));
}
