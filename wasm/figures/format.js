// Numbers as figures and readouts write them.

/** A number for a readout: 4 significant digits, ∞ and − signs. */
export function fmt(v, digits = 4) {
  if (v === Infinity) return '∞';
  if (v === -Infinity) return '−∞';
  if (Number.isNaN(v) || v === undefined || v === null) return '—';
  if (v === 0) return '0';
  const a = Math.abs(v);
  const s = a >= 1e-3 && a < 1e5 ? String(Number(v.toPrecision(digits))) : v.toExponential(digits - 2);
  return s.replace('-', '−');
}

/** An integer with thousands separators. */
export const count = (v) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '—');

/** A fraction as a percentage. */
export const pct = (v, digits = 3) => (Number.isFinite(v) ? `${fmt(100 * v, digits)} %` : '—');

/** The value a data-value attribute carries: exact (String of the number). */
export const dv = (v) => (typeof v === 'number' ? String(v) : v);
