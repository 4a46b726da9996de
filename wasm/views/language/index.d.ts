// softscope/views/language: the language view module (views/language/index.js); the protocol: views/index.d.ts; the
// data's shape: the header of views/language/model.js.
import type { Softscope } from '../../api/index.js';
import type { View, State, Stepper, ViewData } from '../index.js';

/** The Language view. Its compute and start take the user's text beside the state (corpus 'text'):
 *  compute(ss, state, { text }), start(ss, state, { text }). */
export const language: View & {
  compute(ss: Softscope, state: State, options?: { text?: string }): ViewData;
  start(ss: Softscope, state: State, options?: { text?: string }): LanguageStepper;
};
export default language;
/** The view without its training (no compute or start): what a page that only draws needs. */
export const languageDisplay: Omit<View, 'compute' | 'start'>;

/** The view's stepper: the Stepper protocol, and the model file of a run (analysis/language.js save()). */
export interface LanguageStepper extends Stepper {
  /** lm.save() of run `name` (default: the selected run, `sel`); throws once stopped. */
  save(name?: string): Uint8Array;
}

/** Most normalizers trained side by side. */
export const MAX_NORMALIZERS: number;
/** The corpora: grammar, bigram_backcopy, text. */
export const CORPORA: readonly string[];
/** The longest prompt of a state, in characters. */
export const PROMPT_MAX: number;
/** The most tokens a run generates. */
export const LENGTH_MAX: number;
/** nanoGPT's baby-GPT optimizer defaults (lr 1e-3, beta2 0.99, weight_decay 0.1). */
export const LM_OPT_DEFAULTS: Readonly<Record<string, number>>;
/** Display fields (the schema's `display: true`; they keep the trained models) whose change redoes the generation
 *  (GENERATION_KEYS) or the inspection (INSPECT_KEYS). */
export const GENERATION_KEYS: readonly string[];
export const INSPECT_KEYS: readonly string[];
/** The generation's keys as one string. */
export function generationKey(state: Record<string, unknown>): string;
/** Bit widths of the quantisation panel. */
export const BITS: readonly number[];
/** The longest window whose attention maps the data keeps. */
export const MAP_MAX: number;
/** A head is a sink when its non-trigger queries put more than this on BOS. */
export const SINK_THRESHOLD: number;
/** Normalizers the model trains through; quantizers of the panel. */
export function trainable(ss: Softscope): string[];
export function panelQuantizers(ss: Softscope): string[];
/** createLanguageModel's options for a state and one normalizer. */
export function languageOptions(ss: Softscope, state: State, normalizer: string, text?: string): Record<string, unknown>;
/** The decoding as it runs: the stages on and each stage's value. */
export function decodingOf(ss: Softscope, state: State): { on: string[]; values: Record<string, number> };
