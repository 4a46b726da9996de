// The Performance view's timing runner: each chosen normalizer, in each
// loaded build (one softscope instance per build) and in plain JavaScript,
// timed side by side by analysis/race.js -- interleaved rounds, the median
// per candidate -- on the same logits. The wasm builds run the kernel on
// buffers that live in their heap (ss.normalizeInto, no copies), plain JS on
// Float32Arrays. It runs in a Web Worker in the browser (worker.js) and
// directly in Node (`softscope figure performance`); it returns plain
// numbers, the model (model.js) turns them into what the figure draws.
import { race, raceSteps } from '../../analysis/race.js';
import { rng } from '../../analysis/random.js';

/** What the logits are (the figure's subtitle says it). */
export const INPUT_TEXT = 'logits uniform in [−10, 10), seed 1';
const WARMUP = { warmupMs: 30, minCalls: 3 };

/** n logits uniform in [-10, 10) (seeded: every build times the same input). */
export function benchLogits(n, seed = 1) {
  const next = rng(seed);
  return Float32Array.from({ length: n }, () => -10 + 20 * next());
}

// One candidate per build that has the kernel (wasm) or a JS version: { id, fn, free }.
function candidates(instances, js, kernel, x, builds) {
  const out = [], skipped = [];
  for (const id of builds) {
    if (id === 'js') {
      if (js[kernel]) {
        const y = new Float32Array(x.length), f = js[kernel];
        out.push({ id, fn: () => f(x, y), free() {} });
      } else skipped.push({ build: id, error: `no plain-JS ${kernel} to compare with` });
      continue;
    }
    const ss = instances[id];
    if (!ss) continue; // the build did not load: reported once, for the build
    try {
      const bx = ss.alloc(x.length).set(x), by = ss.alloc(x.length);
      ss.normalizeInto(kernel, bx, by); // a bad kernel or parameter fails here, not in a timed round
      out.push({ id, fn: () => ss.normalizeInto(kernel, bx, by), free() { bx.free(); by.free(); } });
    } catch (e) {
      skipped.push({ build: id, error: e.message.replace(/^[^:]*: /, '') });
    }
  }
  return { cands: out, skipped };
}

/**
 * Times `kernels` at `n` in `builds`. instances: { relaxed, simd, scalar }
 * (a softscope instance, or null when that build is not loaded); js: kernel
 * name -> plain-JS fn(x, y). now(): nanoseconds (performance.now() * 1e6).
 * onProgress({ done, total, kernel }) after each calibration and round.
 * Returns { n, rounds, ms, input, results: [{ kernel, build, ns_per_elem, min,
 * max, rounds } | { kernel, build, error }] }.
 */
export async function runTimings(instances, js, { kernels, n, builds, rounds, ms, now, onProgress = () => {} }) {
  const x = benchLogits(n);
  const settings = { rounds, roundMs: ms, ...WARMUP };
  const results = [];
  // the total is known before the first round: every (kernel, candidate) pair is set up first, then timed
  const plans = kernels.map((kernel) => ({ kernel, ...candidates(instances, js, kernel, x, builds) }));
  const total = plans.reduce((s, p) => s + raceSteps(p.cands.length, rounds), 0);
  let done = 0;
  onProgress({ done, total, kernel: plans[0]?.kernel ?? null });
  try {
    for (const p of plans) {
      results.push(...p.skipped.map((s) => ({ kernel: p.kernel, ...s })));
      if (!p.cands.length) continue;
      const times = await race(p.cands, n, settings, now, () => onProgress({ done: ++done, total, kernel: p.kernel }));
      for (const c of p.cands) results.push({ kernel: p.kernel, build: c.id, ...times.get(c.id) });
    }
  } finally {
    for (const p of plans) for (const c of p.cands) c.free();
  }
  return { n, rounds, ms, input: INPUT_TEXT, results };
}
