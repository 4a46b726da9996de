// softscope/figures: what figures are drawn with (figures/index.js).
import type { Softscope, Family } from '../api/index.js';

/** A number for a readout: `digits` significant digits (default 4), ∞ and − signs, — for NaN. */
export function fmt(v: number, digits?: number): string;
/** v as a percentage with `digits` significant digits. */
export function pct(v: number, digits?: number): string;
/** v rounded, with thousands separators ('—' when not finite). */
export function count(v: number): string;

export interface Scale {
  (v: number): number;
  domain(): number[];
  domain(d: number[]): Scale;
  range(): number[];
  range(r: number[]): Scale;
  invert(v: number): number;
  ticks(count?: number): number[];
  copy(): Scale;
  [more: string]: any;
}
export function scaleLinear(): Scale;
export function scaleLog(): Scale;
export function scaleBand(): any;

/** The series palette (CSS colours). */
export const SERIES: readonly string[];
/** A theme's colours ('light' | 'dark'). */
export function theme(t: 'light' | 'dark'): Record<string, any>;
/** One colour per registry kernel of a family (a kernel has one colour everywhere). */
export function kernelColors(ss: Softscope, family: Family): Map<string, string>;
/** One colour per name, in order. */
export function listColors(names: readonly string[], offset?: number): Map<string, string>;
