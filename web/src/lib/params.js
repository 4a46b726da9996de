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

/** The params object for one kernel: state values where set, else defaults. */
export function paramsFor(kernelInfo, values) {
  const out = {};
  for (const p of kernelInfo.params || []) {
    const v = values[p.name];
    out[p.name] = Number.isFinite(v) ? v : p.default;
  }
  return out;
}

/** Slider range for a parameter: its ui range, else its valid range. */
export function sliderRange(p) {
  const min = Number.isFinite(p.ui_min) ? p.ui_min : p.min;
  const max = Number.isFinite(p.ui_max) ? p.ui_max : p.max;
  return { min, max, log: !!p.log_scale && min > 0, integer: p.type === 'int' };
}
