// The Normalizers view's data (compute; the model's header has its parts),
// declared once (views/shape.js): its top level, the nested parts by their
// TypeScript type (json: not checked), so the view draws from its state, not
// from a results file; the types of index.d.ts come from it
// (scripts/gen-shapes.js).
import { number, list, object, json } from '../shape.js';

/** The Normalizers view's data. */
export const dataShape = object({
  x: json({ ts: 'Array<number | string>', doc: 'the logits (a non-finite one as its string in JSON)' }),
  temperature: number(),
  series: list(json({ ts: '{ name: string; kind: string; params: Record<string, number>; summary?: string; formula?: string; paper?: string; '
    + 'scaled?: boolean; y?: Array<number | string>; metrics?: Record<string, number | null>; error?: string; argument?: string }',
  doc: 'each normalizer\'s output and metrics, or its error' }), { max: 64 }),
}, { doc: 'The Normalizers view\'s data.' });
