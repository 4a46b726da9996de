// softscope/views: the views (views/index.js, the one list) and the protocol
// every view module follows (views/README.md, "adding a view").
import type { Softscope } from '../api/index.js';
import type { Schema, State } from '../state/schema.js';
import type { Shape } from './shape.js';

export type { Schema, State, Field, Notice } from '../state/schema.js';
export { parse, defaults, toHash, stateEntries } from '../state/schema.js';

/** A view's id: the views of views/index.js, in tab order (tests/js/types.test.js holds the two the same). */
export type ViewId = 'normalizers' | 'dispersion' | 'sampling' | 'quantization' | 'optimizers' | 'attention' | 'experiments' | 'language' | 'performance';

/** A view's numbers: what compute returns and Figure draws (plain numbers and arrays). */
export type ViewData = Record<string, any>;

/** A progressive view's work in slices (views/stepper.js). */
export interface Stepper<D = ViewData> {
  /** The next slice, about budgetMs long (Infinity: all of it); true while work remains. */
  step(budgetMs?: number): boolean;
  /** The numbers so far, in compute's shape. */
  data(): D;
  /** A new state: true when taken in place (the work goes on), false when the work must start over. */
  update?(state: State): boolean;
  /** One step of a Step button; true while work remains. */
  advance?(): boolean;
  /** Frees what the stepper holds (a stale run). */
  stop?(): void;
}

/** A view module (softscope/views/<id>). */
export interface View<D = ViewData> {
  id: ViewId;
  label: string;
  summary: string;
  schema: Schema;
  /** Its data's shape (views/<id>/data-shape.js, softscope/views/shape), loaded on demand (a page that only draws does
   *  without it). A widget draws a results file of a view whose shape is bounded: experiments, language. */
  dataShape?(): Promise<Shape>;
  /** state -> the numbers the figure shows (a measured view also takes its timings). */
  compute(ss: Softscope, state: State, timings?: unknown): D;
  /** A progressive view: the same numbers in slices; compute runs it to the end. */
  start?(ss: Softscope, state: State): Stepper<D>;
  /** The numbers as rows (CSV). */
  table(data: D): { columns: string[]; rows: Array<Array<string | number>> };
  /** One sentence of what the figure shows. */
  describe?(data: D): string;
  /** A Preact component drawing one <svg>: { data, colors, theme, width, height, ... }. */
  Figure: (props: { data: D; colors: Map<string, string>; theme?: 'light' | 'dark'; width: number; height: number; [more: string]: unknown }) => unknown;
  height(data: D, width: number, options?: { input?: boolean }): number;
  width: number;
  /** The figure's colours: a name -> CSS colour. */
  colors(ss: Softscope): Map<string, string>;
  /** A measured view: state -> timings (async). */
  measure?(state: State, options?: { onProgress?: (p: { done: number; total: number; kernel?: string }) => void }): Promise<unknown>;
  /** What the playground's Web Worker offers beyond start and measure: other runs, and commands on the run. */
  worker?: {
    start?: Record<string, (ss: Softscope, state: State, input?: unknown) => Stepper<D>>;
    calls?: Record<string, (stepper: Stepper<D>, args?: unknown) => unknown>;
  };
}

/** The views in tab order. */
export const VIEWS: readonly View[];
export const VIEW_IDS: readonly ViewId[];
/** The view with this id (an Error naming the known ones otherwise). */
export function view(id: ViewId): View;
/** JSON-ready numbers (typed arrays as arrays, non-finite numbers as strings). */
export function plain(data: unknown): any;
/** CSV text of a view's table. */
export function csv(v: View, data: ViewData): string;
