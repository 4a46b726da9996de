// Slider position <-> parameter value. Positions are in [0, 1]; log-scale
// parameters (e.g. temperature over [0.05, 20]) are linear in ln(value), so
// equal slider distances are equal ratios.

export function valueToPosition(value, { min, max, log = false }) {
  if (!(max > min)) return 0;
  const v = Math.min(max, Math.max(min, value));
  const t = log ? Math.log(v / min) / Math.log(max / min) : (v - min) / (max - min);
  return Number.isFinite(t) ? t : 0;
}

export function positionToValue(t, { min, max, log = false, integer = false }) {
  const u = Math.min(1, Math.max(0, t));
  let v = log ? min * Math.pow(max / min, u) : min + u * (max - min);
  if (integer) v = Math.round(v);
  return Math.min(max, Math.max(min, v)); // pow may overshoot by an ulp
}

/** Log scale is only meaningful over a positive range. */
export const canLog = (min, max) => min > 0 && max > min;

/** A value rounded to `digits` significant digits, for URLs and readouts. */
export function roundSig(v, digits = 4) {
  if (v === 0 || !Number.isFinite(v)) return v;
  return Number(v.toPrecision(digits));
}
