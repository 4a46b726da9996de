// softscope/views/sampling: the sampling view module (views/sampling/index.js); the protocol: views/index.d.ts.
import type { Softscope, KernelInfo, ParamInfo } from '../../api/index.js';
import type { View, State } from '../index.js';

export const sampling: View;
export default sampling;

// What the playground's View builds its controls from.
/** The state's logits (Float32Array; the LM preset's token words and prompt; by rank for a large vocabulary), reused while they stay the same. */
export function cachedLogits(state: State): { x: Float32Array; tokens: Record<number, string> | null; prompt: string | null; order: Uint32Array | null };
/** The largest value an n-bounded parameter may take at length n (Infinity when unbounded). */
export function nBound(p: ParamInfo, n: number): number;
/** The kernel the triangle shows: the relaxed sampler or its hard variant. */
export function relaxedKernel(ss: Softscope, name: string, hard: boolean):
  { missing: true } | { kernel: KernelInfo; extra: Record<string, number>; hardAvailable: boolean; hard: boolean };
/** The registry's decoding stages in their order. */
export function decodeStages(ss: Softscope): KernelInfo[];
/** A stage's own parameter (null when it has none). */
export function stageParam(k: KernelInfo): ParamInfo | null;
export const TRI_LIMIT: number;
export const TARGET_LIMIT: number;
/** The language-model preset's name. */
export const LM: string;
export const LM_SIZES: readonly number[];
export const SAMPLING_PRESETS: Readonly<Record<string, { label: string; help: string }>>;
