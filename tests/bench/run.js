// The benchmark's run, family by family, in any engine: `make bench` calls
// it in Node (bench.js) and `make bench-browser` in a Chromium page
// (browser/page.js), on the same family specs (families.js), the same
// interleaved rounds (timing.js) and the same accuracy report. No Node
// module here.
//
// A family's sizes are numbers (n) or shapes { n, rows, label } (the rows
// table); a shape may also carry units (the units one call of a candidate
// does, n by default: the baby GPT's call is several training steps) and
// settings (its own rounds, overriding the family's and bench-check's unless
// --rounds is given: a step of ~0.1 s, and TF.js's of ~1 s). A spec's skip(ctx) returns a note when the family cannot run in
// this engine or build (the row table before ss.normalize has { rows }).
// A spec's external(ctx, kernel, n, input, shape, settings, clock) adds the
// results of a peer that runs outside the process, with its own rounds
// ({ results: { id: { ns_per_elem, ... } }, notes: { id: why not } }).
// A spec's units(kernel, shape) gives the units of a kernel's call where
// they differ by kernel (matmul: flops; backward's call is two products),
// and finish(rows) completes the rows after the family's rounds (matmul:
// the derived dx row, each row's fraction of the peak).
import { FAMILIES, release } from './families.js';
import { race } from './timing.js';
import { maxRelErr } from './plain-js.js';
import { fmtE, inUnit, pow2 } from '../../scripts/bench/report.js';

/** The options both runners take (bench.js, bench-browser.js): o updated
    from argv[i] (and its value); returns the index of the last argument
    read, or -1 when argv[i] is not one of them. */
export function commonArg(o, argv, i) {
  const a = argv[i], next = () => argv[++i];
  if (a === '--quick') o.quick = true;
  else if (a === '--families') o.families = next().split(',');
  else if (a === '--kernels') o.kernels = next().split(',');
  else if (a === '--sizes') o.sizes = next().split(',').map((v) => (/^\d+(x\d+)+$/.test(v) ? v : Number(v))); // n, or RxC (the rows tables), RxIxO (matmul)
  else if (a === '--no-peers') o.peers = false;
  else if (a === '--out') o.out = next();
  else if (a === '--estimator') o.estimator = next(); // median | min
  else if (a === '--rounds') o.settings = { ...o.settings, rounds: Number(next()) }, o.roundsGiven = true;
  else if (a === '--round-ms') o.settings = { ...o.settings, roundMs: Number(next()) };
  else return -1;
  return i;
}

const sizeN = (s) => (typeof s === 'number' ? s : s.n);
const sizeKey = (s) => (typeof s === 'number' ? String(s) : s.label);

/**
 * ctx: { builds, peers }; opts: { quick, families, kernels, sizes (a list, or one per family), clock, estimator ('median' | 'min') }; st: { rounds, roundMs, warmupMs, minCalls };
 * log(line). Returns { [family]: { family, title, unit, input, headline, rounds, rows, seconds, note? } }.
 */
export async function runFamilies(ctx0, opts, st, log) {
  const out = {};
  for (const [name, spec] of Object.entries(FAMILIES)) {
    if (opts.families && !opts.families.includes(name)) continue;
    const kernels = (spec.kernels ? spec.kernels(ctx0) : ctx0.builds[Object.keys(ctx0.builds)[0]].registry.kernels.filter((k) => k.family === name).map((k) => k.name))
      .filter((k) => !opts.kernels || opts.kernels.includes(k));
    if (!kernels.length) continue;
    const t0 = Date.now();
    const ctx = { ...ctx0, family: name };
    const fst = spec.rounds && !opts.quick && !opts.settings?.rounds ? { ...st, rounds: spec.rounds } : st; // --rounds wins
    const head = { family: name, title: spec.title, unit: spec.unit, input: spec.inputText, headline: spec.headline, rounds: fst.rounds };
    const note = spec.skip?.(ctx);
    if (note) {
      log(`  ${name}: skipped (${note})`);
      out[name] = { ...head, rows: [], note, seconds: 0 };
      continue;
    }
    // by size, so the inputs are resident once per n
    const bySize = new Map();
    for (const k of kernels)
      for (const s of spec.sizes(k, opts.quick, Array.isArray(opts.sizes) ? opts.sizes : opts.sizes?.[name])) {
        const key = sizeKey(s);
        if (!bySize.has(key)) bySize.set(key, { s, ks: [] });
        bySize.get(key).ks.push(k);
      }
    const rows = [];
    for (const { s, ks } of [...bySize.values()].sort((a, b) => sizeN(a.s) - sizeN(b.s) || (b.s.rows ?? 0) - (a.s.rows ?? 0))) {
      const n = sizeN(s), shape = typeof s === 'number' ? null : s;
      const sst = shape?.settings && !opts.roundsGiven ? { ...fst, ...shape.settings } : fst; // --rounds wins; bench-check's rounds do not
      const inp = spec.input(n, shape);
      for (const k of ks) {
        const where = { kernel: k, n, ...(shape ? { shape: shape.label } : {}) };
        let cands;
        try {
          cands = await spec.candidates(ctx, k, n, inp, shape);
        } catch (e) {
          log(`  ${name} ${k} ${shape?.label ?? `n=${n}`}: ${e.message}`);
          rows.push({ ...where, error: e.message, results: {} });
          continue;
        }
        const units = spec.units ? spec.units(k, shape ?? { n }) : shape?.units ?? n;
        const times = await race(cands, units, sst, opts.clock);
        const row = { ...where, results: {}, ...(sst !== fst ? { rounds: sst.rounds, units: shape.units } : {}) };
        // each kernel against its own float64 reference; none, no error column
        const ref = cands.some((c) => c.out) && spec.reference ? spec.reference(k, inp, shape) : null;
        for (const c of cands) {
          const t = times.get(c.id);
          // estimator 'min': the fastest round (a page's wall clock counts the
          // time the page waits for a core; bench-browser.js); else the median
          const r = { ns_per_elem: opts.estimator === 'min' ? t.min : t.ns_per_elem, median: t.ns_per_elem, min: t.min, max: t.max };
          if (spec.bytes) r.gbps = spec.bytes(n) / (t.ns_per_elem * n);
          if (ref && c.out) r.max_rel_err = maxRelErr(c.out(), ref, k === 'log_softmax').maxRelErr;
          row.results[c.id] = r;
          c.fn.free?.();
          c.dispose?.();
        }
        // a peer timed outside this process (the training step's PyTorch,
        // a child process: families.js), after the rounds; or a note why not
        if (spec.external) {
          const ext = await spec.external(ctx, k, n, inp, shape, sst, opts.clock);
          Object.assign(row.results, ext.results);
          if (ext.notes && Object.keys(ext.notes).length) row.notes = ext.notes;
          if (ext.memory) row.memory = ext.memory;
        }
        rows.push(row);
        const lead = row.results.relaxed ?? row.results.simd;
        log(`  ${name} ${k} ${shape?.label ?? `n=${pow2(n)}`}: ${Object.entries(row.results).map(([id, r]) => `${id} ${(spec.unit === 'GFLOP/s' ? inUnit(spec.unit, r.ns_per_elem) : r.ns_per_elem).toPrecision(3)}`).join(', ')}${lead?.max_rel_err != null ? ` (err ${fmtE(lead.max_rel_err)})` : ''}`);
      }
    }
    spec.finish?.(rows);
    release(ctx);
    out[name] = { ...head, rows, seconds: (Date.now() - t0) / 1000 };
  }
  return out;
}
