// Number formatting for readouts and axes.
export function fmt(v, digits = 4) {
  if (v === Infinity) return '∞';
  if (v === -Infinity) return '−∞';
  if (Number.isNaN(v)) return 'NaN';
  if (v === 0) return '0';
  const a = Math.abs(v);
  const s = a >= 1e-3 && a < 1e5 ? String(Number(v.toPrecision(digits))) : v.toExponential(digits - 2);
  return s.replace('-', '−');
}
