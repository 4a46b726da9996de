// softscope/state: the one (de)serializer of a view's state (state/schema.js),
// driven by the view's schema: links, widget attributes and --state.
import type { Softscope } from '../api/index.js';

/** A view's state: one flat object of its schema's keys. */
export type State = Record<string, any>;

/** One key of a schema (the field types are described in state/schema.js). */
export interface Field {
  key: string;
  type: 'number' | 'bool' | 'choice' | 'names' | 'numbers' | 'point' | 'text' | 'params';
  label?: string;
  help?: string;
  default?: unknown;
  /** The field changes only what is drawn of a run (or a part redone in place): runKey leaves it out. */
  display?: boolean;
  [more: string]: unknown;
}

export interface Schema {
  view: string;
  fields: Field[];
  /** Restores derived values after a parse. */
  finish?(state: State, ss: Softscope): State;
}

/** A key that kept its default: what was given and why it was refused. */
export interface Notice { key: string; value: string; reason: string }

/** The state without its display fields, as one string: equal when the same run is meant (the work is kept). */
export function runKey(schema: Schema, state: State): string;
/** The default state of a schema (a fresh object). */
export function defaults(schema: Schema, ss: Softscope): State;
/** A state from [key, value] entries; never throws (bad values keep their defaults, with notices; a link past LINK_LIMITS keeps them all, with one notice). Every key of the state lies inside its field's bounds. */
export function parse(schema: Schema, entries: Iterable<[string, string]>, ss: Softscope, options?: { ignore?: string[] }):
  { state: State; notices: Notice[] };
/** [key, value] pairs of the state that differ from the defaults (in schema order). */
export function entries(schema: Schema, state: State, ss: Softscope): Array<[string, string]>;
/** A link's hash (without '#'): view=<id> and the state's non-default keys. */
export function toHash(schema: Schema, state: State, ss: Softscope): string;
/** [[key, value], ...] of a hash or query string ('#a=1&b=2', 'a=1&b=2'). */
export function hashEntries(hash: string): Array<[string, string]>;
/** [[key, value], ...] of a playground hash, key=value pairs separated by &, commas or spaces. */
export function stateEntries(text: string): Array<[string, string]>;
/** A state changed by a control, as its link reads it back: numbers at the link's 6 significant digits, then finish. */
export function settle(schema: Schema, state: State, ss: Softscope): State;
/** A number as a link writes it: at most 6 significant digits. */
export function num6(v: number): string;
/** The most a link (a hash, a widget's attributes, --state) holds: with more keys or characters it is not read (one notice). */
export const LINK_LIMITS: { readonly keys: number; readonly chars: number };
/** A value given for a key, as text for a notice (never throws; a long value is cut). */
export function textOf(value: unknown): string;
/** The range of a number field as text, e.g. [0.001, 100]. */
export function rangeOf(f: Field): string;
