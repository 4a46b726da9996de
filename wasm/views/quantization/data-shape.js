// The Quantization view's data (compute; the model's header has its parts),
// declared once (views/shape.js): its top level, the nested parts by their
// TypeScript type (json: not checked), so the view draws from its state, not
// from a results file; the types of index.d.ts come from it
// (scripts/gen-shapes.js).
import { integer, bool, string, list, object, record, nullable, optional, json } from '../shape.js';

/** The Quantization view's data. */
export const dataShape = object({
  scheme: string({ max: 64 }),
  summary: string({ max: 1000 }),
  formula: string({ max: 1000 }),
  params: record(json({ ts: 'number | string' }), { max: 32 }),
  paramsShown: list(json({ ts: '{ name: string; value: number | string; choice: string | null }' }), { max: 32 }),
  source: string({ max: 64 }),
  sourceLabel: string({ max: 200 }),
  n: integer({ min: 1 }),
  log: bool(),
  hist: json({ ts: '{ lo: number; hi: number; counts: number[]; zeros: number; log: boolean }' }),
  levels: nullable(list(json({ ts: '{ value: number; count: number }' }), { max: 1 << 20 })),
  metrics: nullable(json({ ts: 'Record<string, number | null>' })),
  error: nullable(string({ max: 1000 })),
  effect: nullable(json({ ts: 'Record<string, unknown>', doc: 'the effect on a softmax output' })),
  layer: optional(json({ ts: 'Record<string, unknown>', doc: 'AdaRound against nearest rounding on a layer (a scheme that learns its rounding)' })),
}, { doc: 'The Quantization view\'s data.' });
