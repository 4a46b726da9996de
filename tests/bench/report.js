// Turns the raw figures of run.js into the table rows, the accuracy table and
// the targets (met / not met), as text and as JSON-ready objects.
const NAIVE = 'naive_c_softmax';
const THREE_PASS = 'softmax';
const COLS = [
  ['native-scalar', 'native', 'scalar'],
  ['native-simd', 'native', 'simd'],
  ['wasm-scalar', 'wasm-scalar', 'scalar'],
  ['wasm-simd', 'wasm-simd', 'simd'],
  ['js', 'js', 'js'],
  ['js-api', 'js-api', 'js-api'],
];
// Sizes the XNNPACK reference figures were taken at.
const TARGET_SIZES = [8192, 65536];

const pow2 = (n) => {
  const l = Math.log2(n);
  return Number.isInteger(l) && l >= 14 ? `2^${l}` : String(n);
};
const fmt = (v) => (v == null ? '—' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
const fmtX = (v) => (v == null ? '—' : `${v.toFixed(v >= 10 ? 1 : 2)}x`);
const fmtE = (v) => (v == null ? '—' : v >= 1e300 || v === Infinity ? 'Inf' : v.toExponential(2));
const ratio = (a, b) => (a != null && b != null && b > 0 ? a / b : null);

function pad(rows) {
  const w = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  return rows.map((r) => r.map((v, c) => (c < 2 ? String(v).padEnd(w[c]) : String(v).padStart(w[c]))).join('  ')).join('\n');
}

export function formatReport(res) {
  const sources = { ...res.builds, js: res.js, 'js-api': res.jsApi };
  const get = (src, kind, kernel, impl, n) =>
    sources[src]?.[kind]?.find((r) => r.kernel === kernel && r.impl === impl && (n == null || r.n === n)) ?? null;
  const t = (src, kernel, impl, n) => get(src, 'times', kernel, impl, n)?.ns_per_elem ?? null;
  const kernels = [...res.settings.kernels, NAIVE];
  const sizes = res.settings.sizes;

  // ---- rows --------------------------------------------------------------
  const rows = [];
  for (const k of kernels) {
    for (const n of sizes) {
      const row = { kernel: k, n };
      for (const [name, src, impl] of COLS) row[name] = t(src, k, impl, n);
      // the naive loop only runs in the scalar builds
      if (k === NAIVE) row['wasm-scalar'] = t('wasm-scalar', k, 'scalar', n);
      // a kernel no C build has (not registered yet): no row, it is listed as skipped
      if (COLS.slice(0, 4).every(([c]) => row[c] == null)) continue;
      row.wasm_simd_vs_scalar = ratio(row['wasm-scalar'], row['wasm-simd']);
      row.wasm_simd_vs_js = ratio(row.js, row['wasm-simd']);
      row.wasm_simd_vs_naive_c = k === 'log_softmax' || k === NAIVE ? null
        : ratio(t('wasm-scalar', NAIVE, 'scalar', n), row['wasm-simd']);
      row.native_simd_vs_scalar = ratio(row['native-scalar'], row['native-simd']);
      if (k !== THREE_PASS && k !== NAIVE && k !== 'log_softmax') {
        row.three_pass_vs_this_wasm_simd = ratio(t('wasm-simd', THREE_PASS, 'simd', n), row['wasm-simd']);
        row.three_pass_vs_this_native_simd = ratio(t('native', THREE_PASS, 'simd', n), row['native-simd']);
      }
      rows.push(row);
    }
  }

  const lines = [];
  const haveApi = rows.some((r) => r['js-api'] != null);
  const head = ['kernel', 'n', 'nat-scalar', 'nat-simd', 'wasm-scalar', 'wasm-simd', 'js',
    ...(haveApi ? ['js-api'] : []), 'simd/scalar', 'js/simd', 'naiveC/simd', '3pass/this'];
  const table = [head];
  for (const r of rows) {
    table.push([r.kernel, pow2(r.n), fmt(r['native-scalar']), fmt(r['native-simd']), fmt(r['wasm-scalar']),
      fmt(r['wasm-simd']), fmt(r.js), ...(haveApi ? [fmt(r['js-api'])] : []), fmtX(r.wasm_simd_vs_scalar),
      fmtX(r.wasm_simd_vs_js), fmtX(r.wasm_simd_vs_naive_c), fmtX(r.three_pass_vs_this_wasm_simd)]);
  }
  const m = res.machine;
  lines.push(`softscope bench — ${m.cpu}, ${m.cores} cores, node ${m.node}${res.settings.quick ? ' (QUICK run: rough figures)' : ''}`);
  lines.push('ns per element (median of trials); ratios are speed-ups of wasm SIMD (x > 1: wasm SIMD is faster)');
  lines.push('js = plain JS Float32Array loop (softmax rows: max, Math.exp + sum, divide); js-api = wasm SIMD through');
  lines.push('createSoftscope().normalizeInto (zero copy); naiveC = naive_c_softmax in the wasm scalar build;');
  lines.push('3pass/this = softmax (three-pass) time / this kernel\'s time, both wasm SIMD');
  lines.push('');
  lines.push(pad(table));

  // ---- skipped kernels ----------------------------------------------------------
  const skipped = new Map(); // "kernel: reason" -> sources
  for (const [src, b] of Object.entries(sources))
    for (const s of b?.skips ?? []) {
      if (s.impl) continue;
      const key = `${s.kernel}: ${s.reason}`;
      skipped.set(key, [...(skipped.get(key) ?? []), src]);
    }
  const skipText = [...skipped].map(([k, srcs]) => `${k} (${srcs.join(', ')})`);
  if (res.jsApi?.unavailable) skipText.push(`js-api column: ${res.jsApi.unavailable}`);
  if (skipText.length) lines.push('', 'skipped:', ...skipText.map((s) => '  ' + s));

  // ---- accuracy -------------------------------------------------------------
  const accHead = ['kernel', 'metric', ...COLS.map(([c]) => c)];
  const acc = [accHead];
  const accRows = [];
  for (const k of kernels) {
    const r = { kernel: k };
    for (const [name, src, impl] of COLS) r[name] = get(src, 'accuracy', k, impl)?.max_rel_err ?? null;
    if (COLS.slice(0, 4).every(([c]) => r[c] == null)) continue;
    accRows.push(r);
    acc.push([k, k === 'log_softmax' ? '|d log p|' : 'rel err', ...COLS.map(([c]) => fmtE(r[c]))]);
  }
  lines.push('', 'accuracy at n = 65536 vs float64 softmax (outputs >= 1e-30), max over entries;',
    'log_softmax: max |error of log p| = relative error of p (float32 storage alone gives up to',
    'half an ulp of |log p|, 3.8e-6 for |log p| in [64, 69]):', pad(acc));

  // ---- targets --------------------------------------------------------------
  const tsizes = TARGET_SIZES.filter((n) => sizes.includes(n));
  const evalSizes = tsizes.length ? tsizes : sizes;
  const targets = [];
  const speedTarget = (name, want, f) => {
    const vals = evalSizes.map((n) => ({ n, v: f(n) }));
    const measured = vals.filter((x) => x.v != null);
    const met = measured.length === vals.length && measured.length > 0 && measured.every((x) => x.v >= want);
    targets.push({ name, want: `>= ${want}x`, at: vals.map((x) => x.n), values: vals.map((x) => x.v),
      status: measured.length < vals.length ? 'not measured' : met ? 'met' : 'not met' });
  };
  speedTarget('wasm SIMD softmax vs wasm scalar', 5,
    (n) => ratio(t('wasm-scalar', THREE_PASS, 'scalar', n), t('wasm-simd', THREE_PASS, 'simd', n)));
  speedTarget('wasm SIMD softmax vs plain JS', 15,
    (n) => ratio(t('js', THREE_PASS, 'js', n), t('wasm-simd', THREE_PASS, 'simd', n)));
  {
    const e = get('wasm-simd', 'accuracy', THREE_PASS, 'simd')?.max_rel_err ?? null;
    targets.push({ name: 'wasm SIMD softmax max rel err (n = 65536)', want: '<= 2e-6', at: [65536], values: [e],
      status: e == null ? 'not measured' : e <= 2e-6 ? 'met' : 'not met' });
  }
  {
    const N = 1 << 22;
    const v = sizes.includes(N) ? ratio(t('wasm-simd', THREE_PASS, 'simd', N), t('wasm-simd', 'two_pass_softmax', 'simd', N)) : null;
    const vn = sizes.includes(N) ? ratio(t('native', THREE_PASS, 'simd', N), t('native', 'two_pass_softmax', 'simd', N)) : null;
    targets.push({ name: 'two-pass vs three-pass softmax at n = 2^22 (wasm SIMD)', want: '>= 1.15x', at: [N], values: [v],
      native_simd: vn, status: v == null ? 'not measured' : v >= 1.15 ? 'met' : 'not met' });
  }
  lines.push('', 'targets:');
  for (const tg of targets) {
    const vals = tg.values.map((v, i) => `${pow2(tg.at[i])}: ${tg.want.includes('e-') ? fmtE(v) : fmtX(v)}`).join(', ');
    const extra = tg.native_simd != null ? ` (native SIMD: ${fmtX(tg.native_simd)})` : '';
    lines.push(`  [${tg.status === 'met' ? 'met' : tg.status === 'not met' ? 'NOT MET' : 'n/a'}] ${tg.name} ${tg.want} — ${vals}${extra}`);
  }
  // context: the XNNPACK figures quoted in the issue
  const ref = evalSizes.map((n) => `${pow2(n)}: ${fmt(t('wasm-simd', THREE_PASS, 'simd', n))}`).join(', ');
  const naive = evalSizes.map((n) => `${pow2(n)}: ${fmtX(ratio(t('wasm-scalar', NAIVE, 'scalar', n), t('wasm-simd', THREE_PASS, 'simd', n)))}`).join(', ');
  lines.push(`  context: wasm SIMD softmax ns/elem ${ref} (XNNPACK wasm SIMD: ~0.8-0.95);`);
  lines.push(`           vs naive scalar C in wasm ${naive} (XNNPACK: ~5.7x); XNNPACK max rel err 1.3e-5 at 65536`);
  if (res.failures.length) lines.push('', 'FAILURES:', ...res.failures.map((f) => '  ' + f));
  return { text: lines.join('\n') + '\n', rows, accuracy: accRows, targets };
}
