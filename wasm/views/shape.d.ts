// softscope/views/shape: a view's data declared once (views/shape.js): the check of a results file's data, the CLI
// help's outline and the generated types of the view's index.d.ts come from it.
import type { Softscope } from '../api/index.js';

/** A shape: what one of the constructors below returns. */
export interface Shape {
  type: 'number' | 'bool' | 'string' | 'list' | 'object' | 'record' | 'json';
  nullable?: boolean;
  optional?: boolean;
  doc?: string;
  [more: string]: unknown;
}
interface Doc { doc?: string }

export function number(options?: Doc & { min?: number; max?: number; integer?: boolean }): Shape;
export function integer(options?: Doc & { min?: number; max?: number }): Shape;
export function bool(options?: Doc): Shape;
/** At most max characters; options: the names it may be (or a function of the instance), what: how a refusal names them. */
export function string(options: Doc & { max: number; options?: readonly string[] | ((ss: Softscope) => readonly string[]); what?: string }): Shape;
/** A list of at most max items (length: exactly that many). */
export function list(item: Shape, options: Doc & ({ max: number; min?: number } | { length: number })): Shape;
/** Exactly these keys; name: its interface in the generated types; rules: '' or a problem, for what ties keys together. */
export function object(keys: Record<string, Shape>, options?: Doc & { name?: string; rules?: Array<(o: any) => string> }): Shape;
/** Any keys (key: their shape, default a name of at most 64 characters), at most max of them, one value shape. */
export function record(value: Shape, options: Doc & { max: number; key?: Shape }): Shape;
export function nullable(shape: Shape): Shape;
export function optional(shape: Shape): Shape;
/** Any JSON value, not checked: a part declared by its TypeScript type only (ts, default unknown). */
export function json(options?: Doc & { ts?: string }): Shape;
/** True when every part of the shape is declared (no json()): what a results file can be checked against. */
export function bounded(shape: Shape): boolean;
/** A rule of object(): the lists under these keys have one length. */
export function sameLength(...keys: string[]): (o: any) => string;

/** The data when it has the shape (unchanged), else an Error naming the path and the problem
 *  ("data.runs[0].curve.loss[3] is not a number"; error.path: the path); ctx: the instance whose registry names the
 *  kernels a run may name. */
export function check<D = unknown>(shape: Shape, json: unknown, ctx?: Softscope, path?: string): D;
/** The shape as an outline of its keys, lists with their most items, and choices (the CLI's help). */
export function outline(shape: Shape, options?: { width?: number; indent?: string }): string;
/** The shape's TypeScript interfaces: the top one named `name`, then each named object inside it. */
export function declaration(shape: Shape, name: string): string;
