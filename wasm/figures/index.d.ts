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

/** A piece of a typeset formula: Unicode text, a subscript, a superscript, or a name kept whole. */
export type FormulaPart = string | { sub: FormulaPart[] } | { sup: FormulaPart[] } | { code: string };
/** A registry formula (plain text, e.g. "y_i = exp(x_i - m) / sum_j exp(x_j - m)") read as math. code: names to keep whole. */
export function formulaParts(text: string, options?: { code?: readonly string[] }): FormulaPart[];

export interface LabelBox { x0: number; x1: number; y0: number; y1: number }
export interface LabelCandidate { x: number; y: number; text: string; size: number; priority: number }
/**
 * The value labels (numbers) that fit: by priority, each kept if its box lies
 * within [lo, hi] across, is 2 px or more from every kept one and touches no
 * other candidate's mark (marks: their bars' boxes, parallel to cands).
 */
export function placeLabels<C extends LabelCandidate>(cands: readonly C[],
  options?: { lo?: number; hi?: number; marks?: readonly LabelBox[] }): (C & { index: number; box: LabelBox })[];
