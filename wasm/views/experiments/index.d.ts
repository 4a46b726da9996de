// softscope/views/experiments: the experiments view module (views/experiments/index.js); the protocol: views/index.d.ts.
import type { Softscope } from '../../api/index.js';
import type { View, State } from '../index.js';

export const experiments: View;
export default experiments;
/** The view without its training (no compute or start): what a page that only draws needs (the widget's main thread). */
export const experimentsDisplay: Omit<View, 'compute' | 'start'>;

/** Most normalizers trained side by side. */
export const MAX_NORMALIZERS: number;
/** Training-batch accuracy that counts as reached (0.95). */
export const REACHED: number;
/** The view's own optimizer defaults where the registry's are too slow for a short run. */
export const TRAIN_DEFAULTS: Readonly<Record<string, Record<string, number>>>;
/** Normalizers the model trains through (a backward pass; weights, not log-probabilities). */
export function trainable(ss: Softscope): string[];
/** Quantizers of the quantisation panel (a bit width, or an fp8 format). */
export function panelQuantizers(ss: Softscope): string[];
/** The test lengths: trainMax, then powers of two up to testMax. */
export function testLengths(trainMax: number, testMax: number): number[];
/** The options of analysis/experiments.js for a state. */
export function experimentOptions(ss: Softscope, state: State): Record<string, unknown>;
