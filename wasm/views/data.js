// A view's numbers as files: JSON-ready (typed arrays as arrays, non-finite
// numbers as the strings "Infinity", "-Infinity", "NaN") and CSV rows (a
// float32 at the shortest decimal that reads back as it: 0.913, not
// 0.9129999876022339).

/** The shortest decimal that reads back as the same float32 (v itself when it is not a float32). */
export function f32(v) {
  if (!Number.isFinite(v)) return v;
  for (let p = 1; p <= 9; p++) {
    const s = Number(v.toPrecision(p));
    if (Math.fround(s) === v) return s;
  }
  return v;
}

/** JSON-ready numbers. */
export function plain(data) {
  return JSON.parse(JSON.stringify(data, (k, v) => {
    if (ArrayBuffer.isView(v)) return Array.from(v, (x) => (Number.isFinite(x) ? x : String(x)));
    if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
    return v;
  }));
}

/** CSV text of a view's table. */
export function csv(v, data) {
  const { columns, rows } = v.table(data);
  // numbers: integers whole (a count is not a float32), others at their float32 form when they are one
  const cell = (c) => (typeof c === 'string' && /[",\n]/.test(c) ? `"${c.replace(/"/g, '""')}"`
    : typeof c === 'number' && !Number.isInteger(c) ? String(f32(c)) : String(c));
  return [columns, ...rows].map((r) => r.map(cell).join(',')).join('\n') + '\n';
}
