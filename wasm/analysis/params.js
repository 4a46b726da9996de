// A kernel's parameters from a view's state: the one helper every view's
// model uses (one value per registry parameter, in registry order).

/**
 * The params object of kernel k: for each registry parameter, `fixed[name]`
 * when given (a value the view sets itself, e.g. the Normalizers view's
 * temperature), else the state's value (values[name], or with `scoped`
 * values[`${k.name}.${name}`]) when finite, else `defaults[name]` (a view's
 * own defaults) when finite, else the registry default.
 */
export function kernelParams(k, values, { scoped = false, defaults = {}, fixed = {} } = {}) {
  const out = {};
  for (const p of k.params) {
    const v = values?.[scoped ? `${k.name}.${p.name}` : p.name];
    out[p.name] = p.name in fixed ? fixed[p.name] : Number.isFinite(v) ? v : Number.isFinite(defaults?.[p.name]) ? defaults[p.name] : p.default;
  }
  return out;
}
