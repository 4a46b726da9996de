// The Dispersion view's data (compute; the model's header has its parts),
// declared once (views/shape.js): its top level, the nested parts by their
// TypeScript type (json: not checked), so the view draws from its state, not
// from a results file; the types of index.d.ts come from it
// (scripts/gen-shapes.js).
import { number, integer, bool, list, object, json } from '../shape.js';

/** The Dispersion view's data. */
export const dataShape = object({
  invalid: list(json({ ts: '{ name: string; error: string }' }), { max: 64, doc: 'normalizers left out, with why' }),
  nMax: integer({ min: 1 }),
  probLog: bool(),
  margin: number(),
  n: list(integer({ min: 1 }), { max: 64, doc: 'the lengths swept' }),
  series: list(json({ ts: '{ name: string; params: Record<string, number>; output: string; keyProb: Array<number | string>; maxProb: Array<number | string>; '
    + 'entropy: Array<number | string>; support: Array<number | string>; sum: Array<number | string>; errors: unknown[]; fresh: number }',
  doc: 'per normalizer, the measures at each n (NaN, as its string, where not yet computed)' }), { max: 64 }),
}, { doc: 'The Dispersion view\'s data.' });
