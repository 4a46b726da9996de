// The Performance view's numbers: from measured timings (runner.js) to what
// the figure draws -- per kernel, a row per build with its median ns per
// element, its spread over rounds, and the ratios against the scalar build
// and plain JS (how many times faster; > 1: faster). A pure function of the
// timings: nothing is timed here. Without timings (nothing run yet) the
// rows are there, empty, and the figure says to press Run.
import { BUILDS, BUILD_LABELS } from './schema.js';

const ratio = (ref, ns) => (Number.isFinite(ref) && ns > 0 ? ref / ns : null);

/** The builds of the state, in the view's order, each { id, label, available, reason }. */
function buildsOf(state, timings) {
  return BUILDS.filter((b) => state.builds.includes(b)).map((id) => {
    const reason = timings?.unavailable?.[id];
    return { id, label: BUILD_LABELS[id], available: !reason, ...(reason ? { reason } : {}) };
  });
}

/**
 * { ran, n, rounds, ms, input, userAgent, pageBuild, pageBuildLabel, builds, kernels: [{ name, rows: [{ build, label, ns, min, max,
 * vsScalar, vsJs } | { build, label, error }] }] }. ss: the page's instance (its build is the badge's).
 */
export function compute(ss, state, timings = null) {
  const builds = buildsOf(state, timings);
  const pageBuild = ss.build;
  const base = { pageBuild, pageBuildLabel: BUILD_LABELS[pageBuild], builds, n: timings?.n ?? state.n, rounds: timings?.rounds ?? state.rounds, ms: timings?.ms ?? state.ms };
  if (!timings) return { ...base, ran: false, input: null, userAgent: null, kernels: state.kernels.map((name) => ({ name, rows: [] })) };
  const kernels = [...new Set(timings.results.map((r) => r.kernel))].map((name) => {
    const of = (b) => timings.results.find((r) => r.kernel === name && r.build === b);
    const scalar = of('scalar')?.ns_per_elem, js = of('js')?.ns_per_elem;
    const rows = builds.filter((b) => b.available).map(({ id, label }) => {
      const r = of(id);
      if (!r) return null;
      if (r.error) return { build: id, label, error: r.error };
      const ns = r.ns_per_elem;
      return { build: id, label, ns, min: r.min, max: r.max, vsScalar: ratio(scalar, ns), vsJs: ratio(js, ns) };
    }).filter(Boolean);
    return { name, rows };
  });
  return { ...base, ran: true, input: timings.input, userAgent: timings.userAgent, kernels };
}

/** The numbers as a table (CSV): one row per (kernel, build) that ran. */
export function table(d) {
  const rows = [];
  for (const k of d.kernels) for (const r of k.rows) if (!r.error) rows.push([k.name, r.build, d.n, r.ns, r.min, r.max, r.vsScalar ?? '', r.vsJs ?? '']);
  return { columns: ['kernel', 'build', 'n', 'ns_per_element', 'min', 'max', 'x_vs_scalar', 'x_vs_js'], rows };
}
