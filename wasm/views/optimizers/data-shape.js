// The Optimizers view's data (compute: raceData in the model),
// declared once (views/shape.js): its top level, the nested parts by their
// TypeScript type (json: not checked), so the view draws from its state, not
// from a results file; the types of index.d.ts come from it
// (scripts/gen-shapes.js).
import { number, integer, string, list, object, json } from '../shape.js';

/** The Optimizers view's data. */
export const dataShape = object({
  fn: json({ ts: '{ name: string; formula: string; summary: string; view: number[]; minima: number[][]; fmin: number; game: boolean }', doc: 'the test function' }),
  start: list(number(), { length: 2 }),
  steps: integer({ min: 0 }),
  schedule: string({ max: 64 }),
  noise: number(),
  clip: number(),
  step: integer({ min: 0, doc: 'the race\'s furthest step' }),
  heat: json({ ts: 'Record<string, unknown>', doc: 'f on a grid' }),
  loss: json({ ts: '{ log: boolean; domain: number[]; label: string }' }),
  runs: list(json({ ts: 'Record<string, unknown>', doc: 'name, params, path, step, x, y, f, distance, diverged, divergedAt, offAxisAt, error, metrics' }), { max: 16 }),
}, { doc: 'The Optimizers view\'s data.' });
