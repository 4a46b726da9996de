// AdaRound's registry form as the JS side needs it (the direct call
// ss.adaround, the CLI's layer metrics, the Quantization view's layer
// panel): the quantizer's name, and the calibration inputs it draws. No
// import: a view's chunk takes this without the API.

/** The registry quantizer whose rounding is learned on a layer (its direct call: ss.adaround). */
export const ADAROUND = 'adaround';

// The registry form's stream of calibration draws (adaround.c: STREAM_X).
const X_STREAM = 1;

/**
 * The registry form's calibration inputs, cols x batch (row-major): an AR(1)
 * chain along the inputs, x_0b = z_0b, x_kb = corr x_(k-1)b + sqrt(1 - corr^2)
 * z_kb (in double, then rounded to float), z = ss.normal(cols batch) of
 * (seed, stream 1). With corr = 0 these are the registry form's inputs bit
 * for bit; otherwise z is read rounded to float (the registry form chains
 * the unrounded draws), so an input can differ from the registry's in its
 * last bit.
 */
export function adaroundInputs(ss, cols, batch, seed, corr) {
  const z = ss.normal(cols * batch, { seed, stream: X_STREAM });
  const c = Math.sqrt(1 - corr * corr), x = new Float32Array(cols * batch);
  for (let b = 0; b < batch; b++) {
    let prev = z[b];
    x[b] = prev;
    for (let k = 1; k < cols; k++) {
      prev = corr * prev + c * z[k * batch + b];
      x[k * batch + b] = prev;
    }
  }
  return x;
}
