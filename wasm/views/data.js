// A view's numbers as files: JSON-ready (typed arrays as arrays, non-finite
// numbers as the strings "Infinity", "-Infinity", "NaN") and CSV rows.

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
  const cell = (c) => (typeof c === 'string' && /[",\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : typeof c === 'number' && !Number.isFinite(c) ? String(c) : String(c));
  return [columns, ...rows].map((r) => r.map(cell).join(',')).join('\n') + '\n';
}
