// The Sampling view's data (compute; the model's header has its parts),
// declared once (views/shape.js): its top level, the nested parts by their
// TypeScript type (json: not checked), so the view draws from its state, not
// from a results file; the types of index.d.ts come from it
// (scripts/gen-shapes.js).
import { number, integer, bool, string, list, object, nullable, json } from '../shape.js';

/** The Sampling view's data. */
export const dataShape = object({
  n: integer({ min: 1, doc: 'the vocabulary' }),
  small: bool({ doc: 'per token (a small vocabulary), else per group of ranks' }),
  tokens: json({ ts: 'Record<string, string>', doc: 'token id -> text, for the tokens shown' }),
  prompt: nullable(string({ max: 1000 })),
  temperature: number(),
  stages: list(json({ ts: '{ name: string; param: string | null; value: number | null; default: number | null; on: boolean; kept: number | null }' }), { max: 32 }),
  error: nullable(string({ max: 1000 })),
  kept: nullable(number()),
  keptMass: nullable(number()),
  draws: json({ ts: '{ done: number; total: number; tv: number | null; chi2: number | null; dof: number | null; pValue: number | null; impossible: number }' }),
  gumbel: json({ ts: 'Record<string, unknown>', doc: 'the Gumbel-Softmax samples on the triangle' }),
  estimators: json({ ts: 'Record<string, unknown>', doc: 'the estimators\' bias and variance against tau' }),
  bins: list(json({ ts: 'Record<string, number | null>' }), { max: 100000 }),
  top: list(json({ ts: 'Record<string, number | null>' }), { max: 1000 }),
}, { doc: 'The Sampling view\'s data.' });
