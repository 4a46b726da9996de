// The Performance view's data (compute, of the measured timings; the model's
// header has its parts),
// declared once (views/shape.js): its top level, the nested parts by their
// TypeScript type (json: not checked), so the view draws from its state, not
// from a results file; the types of index.d.ts come from it
// (scripts/gen-shapes.js).
import { integer, number, bool, string, list, object, nullable, json } from '../shape.js';

/** The Performance view's data. */
export const dataShape = object({
  pageBuild: string({ max: 32 }),
  pageBuildLabel: string({ max: 64 }),
  builds: list(json({ ts: '{ id: string; label: string; available: boolean; reason?: string }' }), { max: 8 }),
  n: integer({ min: 1 }),
  rounds: integer({ min: 1 }),
  ms: number(),
  ran: bool({ doc: 'false: nothing timed yet' }),
  input: nullable(json({ ts: 'unknown' })),
  userAgent: nullable(string({ max: 1000 })),
  kernels: list(json({ ts: '{ name: string; rows: Array<{ build: string; label: string; ns?: number; min?: number; max?: number; '
    + 'vsScalar?: number | null; vsJs?: number | null; error?: string }> }' }), { max: 64 }),
}, { doc: 'The Performance view\'s data.' });
