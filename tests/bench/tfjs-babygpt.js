// The baby GPT of issue 35 (families.js BABY_GPT) written with TensorFlow.js
// ops, trained with tf.variableGrads + tf.train.adam on the backend the
// bench set up (tfjs-backend-wasm: XNNPACK, SIMD, one thread; peers.js):
// the `training` family's TF.js peer, timed in the same process and rounds
// as softscope's builds.
//
// The same model as softscope's createModel and torch_step.py --model
// babygpt: V = values + 1 tokens, token + learned position embeddings,
// `layers` pre-norm blocks (LayerNorm with gain and bias, eps 1e-5, written
// out: tfjs-core has no layer-norm op; causal softmax attention with scale
// 1/sqrt(d/heads), the mask an added -1e9 below the diagonal; MLP 4d with
// GELU tanh, written out; linear layers without bias), a final LayerNorm,
// the unembedding tied to the token embedding, cross-entropy at every
// position. The embedding lookup is a one-hot matMul (V = 65: a [B n, V] x
// [V, d] product; its gradient is a matMul too, where tf.gather's would be an
// unsortedSegmentSum). tf.train.adam(1e-3, 0.9, 0.99, 1e-8) has no weight
// decay: AdamW's decay is one multiply per parameter (0.8 M), which does not
// matter for the time of a step. The tokens are a fixed seeded draw (the
// timing does not depend on them); the batch is not regenerated per step.
// Engine-neutral (tf is passed in).

/** { steps(k): the loss of the k-th of k training steps, dispose() } or { missing }. */
export async function tfjsBabyGpt(tf, { values, d, heads: H, layers: L, n, batch: B }) {
  try {
    const V = values + 1, dh = d / H, eps = 1e-5;
    let s = 12345;
    const rand = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
    const tok = Int32Array.from({ length: B * (n + 1) }, () => Math.floor(rand() * V));
    const xs = [], ys = [];
    for (let e = 0; e < B; e++)
      for (let j = 0; j < n; j++) xs.push(tok[e * (n + 1) + j]), ys.push(tok[e * (n + 1) + j + 1]);
    const xOh = tf.cast(tf.oneHot(tf.tensor1d(xs, 'int32'), V), 'float32');
    const yOh = tf.cast(tf.oneHot(tf.tensor1d(ys, 'int32'), V), 'float32');
    const mask = tf.tensor2d(Float32Array.from({ length: n * n }, (_, i) => (i % n <= Math.floor(i / n) ? 0 : -1e9)), [n, n]);
    const consts = [xOh, yOh, mask];

    let seed = 7;
    const normal = (shape, std, name) => tf.variable(tf.randomNormal(shape, 0, std, 'float32', seed++), true, name);
    const pstd = 0.02 / Math.sqrt(2 * L);
    const wte = normal([V, d], 0.02, 'wte'), wpe = normal([n, d], 0.02, 'wpe');
    const blocks = Array.from({ length: L }, (_, l) => ({
      ln1g: tf.variable(tf.ones([d]), true, `ln1g${l}`), ln1b: tf.variable(tf.zeros([d]), true, `ln1b${l}`),
      wq: normal([d, d], 0.02, `wq${l}`), wk: normal([d, d], 0.02, `wk${l}`), wv: normal([d, d], 0.02, `wv${l}`), wo: normal([d, d], pstd, `wo${l}`),
      ln2g: tf.variable(tf.ones([d]), true, `ln2g${l}`), ln2b: tf.variable(tf.zeros([d]), true, `ln2b${l}`),
      w1: normal([4 * d, d], 0.02, `w1${l}`), w2: normal([d, 4 * d], pstd, `w2${l}`),
    }));
    const lnfg = tf.variable(tf.ones([d]), true, 'lnfg'), lnfb = tf.variable(tf.zeros([d]), true, 'lnfb');
    const vars = [wte, wpe, lnfg, lnfb, ...blocks.flatMap((b) => Object.values(b))];
    const opt = tf.train.adam(1e-3, 0.9, 0.99, 1e-8);

    const layerNorm = (x, g, b) => {
      const mu = tf.mean(x, -1, true), xc = tf.sub(x, mu);
      return tf.add(tf.mul(tf.mul(xc, tf.rsqrt(tf.add(tf.mean(tf.square(xc), -1, true), eps))), g), b);
    };
    const linear = (x, w) => tf.matMul(x, w, false, true); // x [rows, in], w [out, in]
    const gelu = (x) => tf.mul(tf.mul(x, 0.5), tf.add(1, tf.tanh(tf.mul(Math.sqrt(2 / Math.PI), tf.add(x, tf.mul(0.044715, tf.mul(x, tf.square(x))))))));
    const heads = (x) => tf.reshape(tf.transpose(tf.reshape(x, [B, n, H, dh]), [0, 2, 1, 3]), [B * H, n, dh]);
    const loss = () => {
      let h = tf.reshape(tf.add(tf.reshape(tf.matMul(xOh, wte), [B, n, d]), wpe), [B * n, d]);
      for (const b of blocks) {
        const x = layerNorm(h, b.ln1g, b.ln1b);
        const q = heads(linear(x, b.wq)), k = heads(linear(x, b.wk)), v = heads(linear(x, b.wv));
        const att = tf.softmax(tf.add(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(dh)), mask));
        const o = tf.reshape(tf.transpose(tf.reshape(tf.matMul(att, v), [B, H, n, dh]), [0, 2, 1, 3]), [B * n, d]);
        h = tf.add(h, linear(o, b.wo));
        h = tf.add(h, linear(gelu(linear(layerNorm(h, b.ln2g, b.ln2b), b.w1)), b.w2));
      }
      const logits = tf.matMul(layerNorm(h, lnfg, lnfb), wte, false, true);
      return tf.neg(tf.mean(tf.sum(tf.mul(yOh, tf.logSoftmax(logits)), -1)));
    };
    const step = () => tf.tidy(() => {
      const { value, grads } = tf.variableGrads(loss, vars);
      opt.applyGradients(grads);
      return value;
    });
    const first = step();
    const l0 = first.dataSync()[0];
    first.dispose();
    if (!Number.isFinite(l0)) throw new Error(`the first step's loss is ${l0}`);
    return {
      memoryBytes: tf.memory().numBytes,
      steps(k) {
        let last = 0;
        for (let i = 0; i < k; i++) {
          const v = step();
          if (i === k - 1) last = v.dataSync()[0]; // the wasm backend runs ops synchronously: this reads one float
          v.dispose();
        }
        return last;
      },
      dispose() {
        for (const t of [...vars, ...consts]) t.dispose();
        opt.dispose();
      },
    };
  } catch (e) {
    return { missing: e.message.split('\n')[0] };
  }
}
