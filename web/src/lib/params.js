// Parameter controls are generated from the registry. Parameters are shared
// by name: one control per distinct name among the chosen kernels (e.g. one
// temperature slider for every kernel that has `temperature`).

/** [{ name, info, kernels: [kernel names] }] in order of first appearance. */
export function sharedParams(kernelInfos) {
  const byName = new Map();
  for (const k of kernelInfos) {
    for (const p of k.params || []) {
      if (!byName.has(p.name)) byName.set(p.name, { name: p.name, info: p, kernels: [] });
      byName.get(p.name).kernels.push(k.name);
    }
  }
  return [...byName.values()];
}

/**
 * Slider range for a parameter: its ui range, else its valid range; a side
 * the registry leaves unbounded (or open at the bound) gets a finite end
 * around the default, so every parameter gets a usable slider.
 */
export function sliderRange(p) {
  const d = Number.isFinite(p.default) ? p.default : 0;
  const span = Math.max(1, Math.abs(d));
  let min = Number.isFinite(p.ui_min) ? p.ui_min : p.min;
  let max = Number.isFinite(p.ui_max) ? p.ui_max : p.max;
  const logWanted = !!p.log_scale;
  if (!Number.isFinite(min)) min = logWanted && d > 0 ? d / 100 : d - 10 * span;
  if (!Number.isFinite(max)) max = logWanted && d > 0 ? d * 100 : d + 10 * span;
  // An open bound is not a valid value: step inside it.
  if (p.min_open && min === p.min) min = logWanted && min === 0 ? Math.min(d / 100, max / 1e4) : min + (max - min) * 1e-3;
  if (p.max_open && max === p.max) max = max - (max - min) * 1e-3;
  const integer = p.type === 'int';
  if (integer) { min = Math.ceil(min); max = Math.floor(max); }
  if (!(max > min)) max = min + 1;
  return { min, max, log: logWanted && min > 0, integer };
}

/** The whole valid range of an int parameter (for a stepper). */
export function intRange(p) {
  let min = Number.isFinite(p.min) ? Math.ceil(p.min) : -(2 ** 31);
  let max = Number.isFinite(p.max) ? Math.floor(p.max) : 2 ** 31 - 1;
  if (p.min_open && min === p.min) min += 1;
  if (p.max_open && max === p.max) max -= 1;
  return { min, max };
}
