// fast-check generators read from the registry: inputs of a kernel's input
// kind, parameters within the kernel's documented ranges, and values of the
// wrong type for an option. Every property runs with a fixed seed (FC_SEED
// overrides it), so a failure reproduces.
import fc from 'fast-check';

export const FC = { seed: Number(process.env.FC_SEED ?? 20250417), numRuns: 120 };

const f32 = (v) => Math.fround(v);

/** Float32 logits in [-30, 30] (fast-check also picks tiny and zero ones),
 *  with an occasional -Infinity (a masked entry). */
export function logits(minLength = 1, maxLength = 67) {
  return fc.array(fc.oneof({ weight: 12, arbitrary: fc.float({ min: f32(-30), max: f32(30), noNaN: true }) },
    { weight: 1, arbitrary: fc.constant(-Infinity) }), { minLength, maxLength })
    .map((a) => Float32Array.from(a));
}

/** A probability vector: non-negative weights normalized in float64, then float32. */
export function probs(minLength = 1, maxLength = 67) {
  return fc.array(fc.oneof({ weight: 6, arbitrary: fc.double({ min: 1e-6, max: 1, noNaN: true }) }, { weight: 1, arbitrary: fc.constant(0) }),
    { minLength, maxLength })
    .filter((a) => a.some((v) => v > 0))
    .map((a) => {
      const s = a.reduce((x, y) => x + y, 0);
      return Float32Array.from(a, (v) => v / s);
    });
}

/** Positive finite values (concentrations, magnitudes) and signed ones. */
export function values(minLength = 1, maxLength = 67, positive = true) {
  const v = positive ? fc.float({ min: f32(0.05), max: f32(10), noNaN: true }) : fc.float({ min: f32(-10), max: f32(10), noNaN: true });
  return fc.array(v, { minLength, maxLength }).map((a) => Float32Array.from(a));
}

/** An input for kernel k: { x, x2 } as family-calls.js reads it. */
export function inputOf(k, minLength = 1, maxLength = 67) {
  if (k.input === 'probs_pair') return fc.integer({ min: minLength, max: maxLength }).chain((n) => fc.record({ x: probs(n, n), x2: probs(n, n) }));
  if (k.family === 'optimizer')
    return fc.integer({ min: minLength, max: maxLength }).chain((n) => fc.record({ x: values(n, n, false), x2: values(n, n, false) }));
  const x = k.input === 'logits' ? logits(minLength, maxLength) : k.input === 'probs' ? probs(minLength, maxLength) : values(minLength, maxLength);
  return x.map((a) => ({ x: a, x2: null }));
}

// A sampler's number of draws multiplies its work (and its output by n).
const MAX_DRAWS = 64;

// One parameter within [lo, hi] of the registry: a bound (when closed), or a
// value inside. Ints: inside [min, min(max, ui_max)], and both bounds.
function paramOf(p, n, range) {
  const lo = range === 'ui' ? Math.max(p.min ?? -1e6, p.ui_min) : p.min ?? -1e6;
  let hi = range === 'ui' ? Math.min(p.max ?? 1e6, p.ui_max) : p.max ?? 1e6;
  if (p.n_bound) hi = Math.min(hi, p.n_bound === 'le' ? n : n - 1);
  if (p.name === 'draws') hi = Math.min(hi, MAX_DRAWS);
  if (p.type !== 'float') {
    const a = Math.ceil(lo), b = Math.max(a, Math.floor(hi));
    const inside = fc.integer({ min: a, max: Math.max(a, Math.min(b, Math.floor(Math.max(lo, p.ui_max)))) });
    return fc.oneof({ weight: 6, arbitrary: inside }, { weight: 1, arbitrary: fc.constantFrom(a, b) });
  }
  const inside = fc.double({ min: lo, max: hi, noNaN: true, minExcluded: !!p.min_open && lo === p.min, maxExcluded: !!p.max_open && hi === p.max });
  const ends = [];
  if (!p.min_open || lo !== p.min) ends.push(lo);
  if (!p.max_open || hi !== p.max) ends.push(hi);
  return ends.length ? fc.oneof({ weight: 6, arbitrary: inside }, { weight: 1, arbitrary: fc.constantFrom(...ends) }) : inside;
}

/** Params of k for an input of length n: every parameter in the UI range
 *  ('ui', where the views move them) or the whole documented range ('full'). */
export function paramsOf(k, n, range = 'ui') {
  return fc.record(Object.fromEntries(k.params.map((p) => [p.name, paramOf(p, Math.max(1, n), range)])));
}

/** Values that are not a number (nor undefined / null, which mean "the default"). */
export const notANumber = fc.oneof(
  fc.string(), fc.boolean(), fc.bigInt(), fc.array(fc.integer(), { maxLength: 3 }), fc.object({ maxDepth: 1 }),
  fc.constantFrom(new Float32Array(2), new Uint8Array(1), new Map(), new Date(0), Symbol('s'), () => 1));
