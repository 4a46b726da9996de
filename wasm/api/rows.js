// What the calls with { rows } and { out } share (normalizer.js, measure.js,
// sampler.js): the rows option (x read as rows × n, row-major, one problem per
// row, run by one C call: ss_normalize_rows, ss_measure_rows, ss_sample_rows),
// the error of a failing row (its message and `.row` name the row), and a
// caller's output array (one copy out through the intrinsic set, no new
// array; an exact length).
import { SoftscopeError, SoftscopeTypeError, STATUS, describe } from './errors.js';
import { viewOf, attached, typedName, typedLength, typedBuffer } from './views.js';

const TypedArray = Object.getPrototypeOf(Int8Array);
const SET = TypedArray.prototype.set;
const SUBARRAY = TypedArray.prototype.subarray;

/** options.rows as { rows, n } for an input of `total` entries (null when
 *  not given): an integer >= 1 dividing the length of `name`. */
export function rowsOption(o, total, name, where) {
  const rows = o.rows;
  if (rows === undefined) return null;
  if (typeof rows !== 'number' || !Number.isInteger(rows) || rows < 1)
    throw new SoftscopeError(`${where}: options.rows = ${typeof rows === 'number' ? rows : describe(rows)} must be an integer >= 1`,
      STATUS.SS_ERR_PARAM_RANGE, { argument: 'options.rows' });
  if (total % rows !== 0)
    throw new SoftscopeError(`${where}: ${name} has length ${total}, not a multiple of options.rows = ${rows} (${name} is read as rows × n)`,
      STATUS.SS_ERR_LENGTH, { argument: 'options.rows' });
  return { rows, n: total / rows };
}

/** options.out checked: a `Type` of exactly `length` entries, of memory of
 *  its own (not the wasm memory, which can grow and detach it), or null when
 *  not given. */
export function outOption(o, Type, length, what, where, wasmBuffer) {
  const out = o.out;
  if (out === undefined) return null;
  if (typedName(out) !== Type.name)
    throw new SoftscopeTypeError(`${where}: options.out must be a ${Type.name} of ${length} entries (${what}; got ${describe(out)})`,
      { argument: 'options.out' });
  viewOf(out, Type, 'options.out', where, null);
  const n = typedLength(out);
  if (n !== length)
    throw new SoftscopeError(`${where}: options.out has length ${n}; it must have exactly ${length} entries (${what})`,
      STATUS.SS_ERR_LENGTH, { argument: 'options.out' });
  if (typedBuffer(out) === wasmBuffer)
    throw new SoftscopeError(`${where}: options.out is a view of the wasm memory (buf.array), which a call can grow and detach: pass heap buffers to the *Into form, or an array of your own`,
      STATUS.SS_ERR_BUFFER, { argument: 'options.out' });
  return out;
}

/** Copy `length` entries of `heapView` (the heap's typed view of the
 *  output's type) at element index `at` into the caller's `out`, still
 *  attached (every getter of the call ran before). Returns out. */
export function copyOut(out, heapView, at, length, where) {
  attached(out, length, 'options.out', where);
  Reflect.apply(SET, out, [Reflect.apply(SUBARRAY, heapView, [at, at + length])]);
  return out;
}

/** The Error of row r of a rows call that failed with `status`: the
 *  family's own error for that row's slice of each input (so an index is
 *  within the row), its message prefixed "row r:", with `.row` = r. */
export function rowError(self, where, status, inputs, k, r, n) {
  const sliced = inputs.map((a) => {
    const array = self._arrayOf(a);
    return { ...a, heap: undefined, array: array?.subarray(r * n, (r + 1) * n), source: a.source?.subarray(r * n, (r + 1) * n), n };
  });
  const e = self._fail(`${where}: row ${r}`, status, sliced, k, n);
  e.row = r;
  return e;
}

/** The row the C call reported in the size_t at ptr (wasm32: 32 bits), or
 *  -1 for SS_NO_ROW. */
export function badRow(self, ptr) {
  self._heap.refresh();
  const r = self._heap.u32[ptr >>> 2];
  return r === 0xffffffff ? -1 : r;
}
