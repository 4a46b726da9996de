// A whole measurement for a state: load the builds, time the kernels
// (runner.js), and say where it ran. The Web Worker of the playground
// (web/src/runner/worker.js) and `softscope figure performance`
// both call this; it returns the timings the model reads.
import { loadBuilds } from './builds.js';
import { runTimings } from './runner.js';
import { jsVariants } from '../../analysis/plain-js.js';

const clockNs = () => performance.now() * 1e6;

/** Where the numbers come from: the browser's user agent, or Node's version and platform. */
export function environment() {
  if (typeof navigator !== 'undefined' && navigator.userAgent && !/^Node\.js/.test(navigator.userAgent)) return navigator.userAgent;
  if (typeof process !== 'undefined' && process.versions?.node) return `Node.js ${process.version} (V8 ${process.versions.v8}), ${process.platform} ${process.arch}`;
  return 'unknown';
}

/** The timings for a state: { n, rounds, ms, input, results, unavailable, userAgent }. */
export async function measure(state, { onProgress, now = clockNs } = {}) {
  const { instances, unavailable } = await loadBuilds(state.builds);
  const t = await runTimings(instances, jsVariants, { ...state, now, onProgress });
  return { ...t, unavailable, userAgent: environment() };
}
