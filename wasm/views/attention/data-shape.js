// The Attention view's data (compute; the model's header has its parts),
// declared once (views/shape.js): its top level, the nested parts by their
// TypeScript type (json: not checked), so the view draws from its state, not
// from a results file; the types of index.d.ts come from it
// (scripts/gen-shapes.js).
import { number, integer, bool, list, object, nullable, json } from '../shape.js';

/** The Attention view's data. */
export const dataShape = object({
  example: json({ ts: '{ name: string; label: string; tokens: string[]; n: number; d: number }' }),
  n: integer({ min: 1 }),
  m: integer({ min: 1 }),
  scale: number(),
  causal: bool(),
  quant: nullable(json({ ts: 'Record<string, unknown>' })),
  row: nullable(integer({ min: 0 })),
  panels: list(json({ ts: 'Record<string, unknown>', doc: 'a normalizer\'s or a linear form\'s attention and its row measures, or its error' }), { max: 64 }),
  rf: json({ ts: 'Record<string, unknown>', doc: 'the random-feature kernels\' error maps' }),
  heads: json({ ts: 'Record<string, unknown>', doc: 'the head comparison on the dormant-head example' }),
}, { doc: 'The Attention view\'s data.' });
