// softscope/views/performance/measure: the Performance view's timings
// (views/performance/measure.js), run in the playground's Web Worker and by
// `softscope figure performance`.
import type { State } from '../index.js';

/** Where the numbers come from: the browser's user agent, or Node's version and platform. */
export function environment(): string;
/** The timings for a state: { n, rounds, ms, input, results, unavailable, userAgent }. */
export function measure(state: State, options?: { onProgress?: (p: { done: number; total: number; kernel?: string }) => void; now?: () => number }):
  Promise<{ n: number; rounds: number; ms: number; input: unknown; results: unknown; unavailable: unknown; userAgent: string }>;
