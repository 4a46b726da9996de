// The self-check behind `softscope check`: for every registered kernel, on
// seeded inputs, (1) the scalar and the SIMD build agree within the stated
// bound of the kernel's family, (2) golden vectors and float64 references
// hold, (3) outputs that promise a distribution sum to one, (4) bad inputs
// are rejected with an error. A course or a library runs it in its own CI:
// any failure is a non-zero exit.
import { rng, normal } from './random.js';
import { NORMALIZER_REFERENCES, MEASURE_REFERENCES, LOSS_REFERENCES, GOLDEN, softmax } from './reference.js';
import { attentionExample } from './attention-examples.js';

/**
 * The stated bounds, by family: the largest difference allowed between the
 * scalar and the SIMD build, relative to max(1, |value|) (0: bit-identical).
 * Samplers and quantizers are pinned bit for bit; the others compute the
 * same formulas with other rounding orders and polynomial exps.
 */
export const BOUNDS = {
  normalizer: 2e-6, measure: 1e-5, loss: 1e-5, sampler: 0, quantizer: 0, optimizer: 1e-5, attention: 1e-4,
  reference: 2e-6, sum: 1e-5,
};

const SIZES = [1, 5, 64, 1031];

function values(n, seed, scale = 2) {
  const next = rng(seed);
  return Float32Array.from({ length: n }, () => scale * normal(next));
}

function maxRel(a, b) {
  let e = 0;
  for (let i = 0; i < a.length; i++) {
    if (Object.is(a[i], b[i]) || (a[i] === -Infinity && b[i] === -Infinity)) continue;
    e = Math.max(e, Math.abs(a[i] - b[i]) / Math.max(1, Math.abs(b[i])));
  }
  return e;
}

// Relative error against a float64 reference, for outputs >= 1e-30 (below,
// an absolute 1e-30); the bound of the accuracy table (README and the docs' benchmarks page).
function refError(y, want) {
  let e = 0;
  for (let i = 0; i < y.length; i++) {
    const w = want[i];
    if (w === y[i]) continue;
    e = Math.max(e, Math.abs(w) >= 1e-30 ? Math.abs(y[i] - w) / Math.abs(w) : Math.abs(y[i] - w) / 1e-30);
  }
  return e;
}

const sum = (y) => Array.from(y).reduce((s, v) => s + v, 0);

// A probability vector made in float64 here (not by a kernel under test).
const probs = (n, seed) => Float32Array.from(softmax(Array.from(values(n, seed))));

// The input a kernel reads, for a size.
function inputFor(ss, k, n, seed) {
  const x = values(n, seed);
  if (k.input === 'probs' || k.input === 'probs_pair') return probs(n, seed);
  if (k.input === 'values') return Float32Array.from(x, (v) => Math.abs(v) + 0.5);
  return x;
}

// One call of kernel k (registry entry) on input x: its outputs as arrays to compare.
function call(ss, k, x, seed) {
  switch (k.family) {
    case 'normalizer': return [ss.normalize(k.name, x)];
    case 'measure': return [[k.input === 'probs_pair' ? ss.measure(k.name, x, probs(x.length, seed + 7)) : ss.measure(k.name, x)]];
    case 'loss': { const r = ss.loss(k.name, x, { target: 0 }); return [[r.loss], r.grad]; }
    case 'sampler': {
      const p = {};
      if (k.params.some((q) => q.name === 'seed')) p.seed = seed;
      if (k.params.some((q) => q.name === 'draws')) p.draws = 16;
      const r = ss.sample(k.name, x, p);
      return [r.probs, r.indices ?? [], r.samples ?? []];
    }
    case 'quantizer': { const r = ss.quantize(k.name, x); return [r.output, r.codes]; }
    case 'optimizer': {
      const w = Float32Array.from(x), st = ss.optimizerState(k.name, x.length);
      const g = values(x.length, seed + 3, 1);
      for (let t = 0; t < 3; t++) ss.optimize(k.name, w, k.lookahead ? ss.samPerturb(w, g) : g, {}, st);
      return [w, st.slots];
    }
    case 'attention': {
      // scores of std 0.5 (N(0, 1) rows of 16, scale 1/8): where the signed
      // random-feature estimators keep every row's normalizer positive
      const ex = attentionExample('random', Math.max(4, Math.min(32, x.length)), seed);
      return [ss.attend(k.name, ex, k.params.some((p) => p.name === 'scale') ? { scale: 0.125 } : {}).output];
    }
    default: return [];
  }
}

// Can this kernel run at size n with its default parameters (n-bound ones like k)?
function fits(ss, k, n) {
  if (k.family === 'attention') return n === 64;
  if (k.family === 'measure' && k.input === 'values') return n >= 2; // a spread (kurtosis) needs two values
  if (k.family === 'quantizer' && k.params.some((p) => p.name === 'codebook')) return n >= 64;
  return !ss.checkParams(k.name, {}, n);
}

/**
 * Runs the checks: { rows: [{ kernel, family, checks: { simd, reference, sum, errors }: 'pass' | 'fail' | 'skip' }],
 * failures: [{ kernel, check, detail }], passed, failed, skipped, ms }. instances: { scalar, simd } (simd may be null).
 */
export function runCheck({ scalar, simd }) {
  const t0 = Date.now();
  const failures = [], rows = [];
  let passed = 0, failed = 0, skipped = 0;
  const fail = (row, check, detail) => { row.checks[check] = 'fail'; failures.push({ kernel: row.kernel, check, detail }); };
  for (const k of scalar.kernels()) {
    const row = { kernel: k.name, family: k.family, checks: { simd: 'skip', reference: 'skip', sum: 'skip', errors: 'skip' } };
    rows.push(row);
    // (1) scalar against SIMD
    if (simd && simd.kernel(k.name, k.family).impls.includes('simd')) {
      row.checks.simd = 'pass';
      for (const n of SIZES) {
        if (!fits(scalar, k, n)) continue;
        let a, b;
        const x = inputFor(scalar, k, n, 11 + n);
        try { a = call(scalar, k, x, 7); } catch (e) { fail(row, 'simd', `scalar build, n = ${n}: ${e.message}`); break; }
        try { b = call(simd, k, x, 7); } catch (e) { fail(row, 'simd', `SIMD build, n = ${n}: ${e.message}`); break; }
        const bound = BOUNDS[k.family];
        const e = Math.max(...a.map((v, i) => maxRel(Array.from(v), Array.from(b[i]))));
        if (!(e <= bound)) { fail(row, 'simd', `n = ${n}: scalar and SIMD differ by ${e.toExponential(2)} (bound ${bound})`); break; }
      }
    }
    // (2) references and golden vectors
    const ref = NORMALIZER_REFERENCES[k.name] ?? MEASURE_REFERENCES[k.name] ?? LOSS_REFERENCES[k.name];
    const goldens = GOLDEN.filter((g) => g.kernel === k.name);
    if (ref || goldens.length) {
      row.checks.reference = 'pass';
      for (const ss of [scalar, simd].filter(Boolean)) {
        for (const g of goldens) {
          const y = ss.normalize(k.name, Float32Array.from(g.x));
          const e = maxRel(Array.from(y), g.y);
          if (!(e <= 1e-6)) fail(row, 'reference', `${ss.impl}: golden ${JSON.stringify(g.x.map((v) => +v.toFixed(4)))} off by ${e.toExponential(2)}`);
        }
        if (k.family === 'normalizer' && ref) {
          for (const n of SIZES) {
            const x = values(n, 100 + n, 3);
            const p = Object.fromEntries(k.params.map((q) => [q.name, q.default]));
            const y = ss.normalize(k.name, x, p), want = ref(Array.from(x), p);
            const e = refError(Array.from(y), want);
            if (!(e <= BOUNDS.reference)) fail(row, 'reference', `${ss.impl}, n = ${n}: off the float64 reference by ${e.toExponential(2)}`);
          }
        }
        if (k.family === 'loss' && ref) {
          const x = values(64, 9);
          const r = ss.loss(k.name, x, { target: 3 }), want = ref(Array.from(x), 3);
          const e = Math.max(Math.abs(r.loss - want.loss) / Math.max(1, Math.abs(want.loss)), maxRel(Array.from(r.grad), want.grad));
          if (!(e <= 1e-5)) fail(row, 'reference', `${ss.impl}: loss or gradient off the float64 reference by ${e.toExponential(2)}`);
        }
        if (k.family === 'measure' && ref) {
          const p = probs(64, 5), q = probs(64, 6);
          const got = k.input === 'probs_pair' ? ss.measure(k.name, p, q) : ss.measure(k.name, p);
          const want = k.input === 'probs_pair' ? ref(Array.from(p), Array.from(q)) : ref(Array.from(p));
          if (!(Math.abs(got - want) <= 1e-5 * Math.max(1, Math.abs(want)))) fail(row, 'reference', `${ss.impl}: ${got} vs float64 ${want}`);
        }
      }
    }
    // (3) sums to one where promised
    const promises = (k.family === 'normalizer' && k.output === 'probs') || (k.family === 'sampler' && k.draws !== 'vector');
    if (promises) {
      row.checks.sum = 'pass';
      for (const n of SIZES) {
        if (!fits(scalar, k, n)) continue;
        const x = inputFor(scalar, k, n, 31 + n);
        const y = k.family === 'normalizer' ? scalar.normalize(k.name, x) : scalar.sample(k.name, x, { draws: 0 }).probs;
        const s = sum(y);
        if (!(Math.abs(s - 1) <= BOUNDS.sum)) { fail(row, 'sum', `n = ${n}: sum ${s}`); break; }
        if (y.some((v) => !(v >= 0))) { fail(row, 'sum', `n = ${n}: a negative or NaN probability`); break; }
      }
    }
    // (4) bad input rejected: NaN in the data, and a parameter past its range
    if (['normalizer', 'measure', 'loss', 'sampler', 'quantizer', 'optimizer'].includes(k.family)) {
      row.checks.errors = 'pass';
      const x = inputFor(scalar, k, 8, 3);
      x[2] = NaN;
      try {
        const out = call(scalar, k, x, 1);
        fail(row, 'errors', `NaN in the input was accepted (${JSON.stringify(Array.from(out[0]).slice(0, 3))}...)`);
      } catch (e) {
        if (!e.code?.startsWith('SS_ERR')) fail(row, 'errors', `NaN input: not a softscope error (${e.message})`);
      }
      const p = k.params.find((q) => Number.isFinite(q.max) && q.max < 1e300 && !q.n_bound);
      if (p) {
        const e = scalar.checkParams(k.name, { [p.name]: p.max + Math.max(1, Math.abs(p.max)) });
        if (!e || e.argument !== `params.${p.name}`) fail(row, 'errors', `params.${p.name} above its maximum was ${e ? `reported as ${e.argument}` : 'accepted'}`);
      }
    }
    for (const v of Object.values(row.checks)) v === 'pass' ? passed++ : v === 'fail' ? failed++ : skipped++;
  }
  return { rows, failures, passed, failed, skipped, ms: Date.now() - t0 };
}
