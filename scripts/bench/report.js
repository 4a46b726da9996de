// The benchmark's outputs: text tables, SVG charts and the numbers they are
// made from (bench.js writes the JSON). Only formatting here.

// Column order: softscope's builds, its API, plain JS, the peers, memcpy.
const ORDER = ['relaxed', 'simd', 'scalar', 'relaxed sort', 'simd sort', 'api', 'api out', 'js', 'tfjs', 'tfjs xnn', 'tfjs+dataSync',
  'ort-web', 'ort-node', 'transformers', 'transformers k50', 'torch', 'torch (reference BLAS)', 'memcpy wasm', 'memcpy native', 'memcpy new array'];
export const orderIds = (ids) => [...ids].sort((a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99));

export const pow2 = (n) => {
  const l = Math.log2(n);
  return Number.isInteger(l) && l >= 13 ? `2^${l}` : String(n);
};
const SUP = '⁰¹²³⁴⁵⁶⁷⁸⁹';
/** pow2 typeset (2²⁰) for the pages and the charts; the text tables keep 2^20. */
export const pow2Sup = (n) => pow2(n).replace(/\^(\d+)/, (_, d) => [...d].map((c) => SUP[c]).join(''));
export const fmt = (v) => (v == null ? '—' : v >= 1000 ? v.toFixed(0) : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3));
export const fmtX = (v) => (v == null || !isFinite(v) || v <= 0 ? '—' : `${v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)}x`);
/** a / b, null when either is missing. */
export const ratio = (a, b) => (a != null && b != null && b > 0 ? a / b : null);
export const fmtE = (v) => (v == null ? '—' : v === Infinity || v >= 1e300 ? 'Inf' : v.toExponential(1));

/** A figure in the family's unit from ns per element over n units. */
export function inUnit(unit, nsPerElem, n) {
  if (nsPerElem == null) return null;
  if (unit.startsWith('us')) return (nsPerElem * n) / 1e3;
  if (unit.startsWith('ms')) return (nsPerElem * n) / 1e6;
  if (unit === 'GFLOP/s') return 1 / nsPerElem; // units are flops (matmul)
  return nsPerElem;
}

export function alignTable(rows) {
  const w = rows[0].map((_, c) => Math.max(...rows.map((r) => String(r[c]).length)));
  return rows.map((r) => r.map((v, c) => (c < 2 ? String(v).padEnd(w[c]) : String(v).padStart(w[c]))).join('  ')).join('\n') + '\n';
}

/** The family table: one row per kernel and n, a column per candidate, then
    the speed-ups of the relaxed build (vs SIMD128, scalar, plain JS and the
    fastest peer) and, for normalizers, the max relative error. */
export function familyTable(fam) {
  if (fam.note) return `(skipped: ${fam.note})\n`;
  const ids = orderIds(new Set(fam.rows.flatMap((r) => Object.keys(r.results))));
  const hasErr = fam.rows.some((r) => Object.values(r.results).some((x) => x.max_rel_err != null));
  // matmul: each candidate's fraction of the peak (the FMA loop's GFLOP/s)
  const peakIds = fam.rows.some((r) => r.ofPeak) ? ids.filter((id) => fam.rows.some((r) => r.ofPeak?.[id] != null)) : [];
  const head = ['kernel', 'n', ...ids, 'relaxed/simd', 'simd/scalar', 'vs js', 'vs best peer', ...(hasErr ? ['max rel err (relaxed / best peer)'] : []),
    ...(peakIds.length ? [`of peak (${peakIds.join(' / ')})`] : [])];
  const out = [head];
  for (const r of fam.rows) {
    const t = (id) => r.results[id]?.ns_per_elem ?? null;
    const best = bestPeer(r);
    const lead = t('relaxed') ?? t('simd');
    out.push([r.kernel, r.shape ?? pow2(r.n), ...ids.map((id) => fmt(inUnit(fam.unit, t(id), r.n))),
      fmtX(ratio(t('simd'), t('relaxed'))), fmtX(ratio(t('scalar'), t('simd'))), fmtX(ratio(t('js'), lead)),
      best ? `${fmtX(ratio(best.ns, lead))} (${best.id})` : '—',
      ...(hasErr ? [errCell(r, best)] : []),
      ...(peakIds.length ? [peakIds.map((id) => (r.ofPeak?.[id] == null ? '—' : `${(100 * r.ofPeak[id]).toFixed(0)}%`)).join(' / ')] : [])]);
  }
  // a peer the row could not run, and why (the training step without torch)
  const notes = fam.rows.flatMap((r) => Object.entries(r.notes ?? {}).map(([id, why]) => `  ${id} (${r.shape ?? pow2(r.n)}): ${why}\n`));
  // the baby GPT's row: its own rounds, torch's BLAS, the wasm memory it takes
  for (const r of fam.rows) {
    const where = r.shape ?? pow2(r.n);
    if (r.rounds) notes.push(`  ${where}: medians of ${r.rounds} rounds of ${r.units} steps\n`);
    const tr = r.results.torch ?? r.results['torch (reference BLAS)'];
    if (tr?.blas_kind) notes.push(`  torch (${where}): BLAS ${tr.blas_kind} (sgemm_ from ${tr.sgemm ?? ((tr.blas ?? []).join(', ') || 'none found')}), 512² matmul ${tr.matmul_gflops} GFLOP/s\n`);
    for (const [id, m] of Object.entries(r.memory ?? {}))
      if (m) notes.push(`  ${id} (${where}): wasm memory ${(m.heapBytes / 2 ** 20).toFixed(1)} MB (fresh instance, createModel + 1 step; parameters ${(m.paramBytes / 2 ** 20).toFixed(1)} MB, workspace ${(m.workspaceBytes / 2 ** 20).toFixed(1)} MB)\n`);
  }
  return alignTable(out) + notes.join('');
}

// the error against the kernel's own float64 reference; empty where it has none
function errCell(r, best) {
  const e = r.results.relaxed?.max_rel_err ?? r.results.simd?.max_rel_err;
  return e == null ? '' : `${fmtE(e)} / ${best ? fmtE(r.results[best.id]?.max_rel_err) : '—'}`;
}

const PEERS = ['tfjs', 'tfjs xnn', 'ort-web', 'ort-node', 'transformers', 'transformers k50', 'torch'];
export function bestPeer(row) {
  let best = null;
  for (const id of PEERS) {
    const v = row.results[id]?.ns_per_elem;
    if (v != null && (!best || v < best.ns)) best = { id, ns: v };
  }
  return best;
}

// ---- SVG ----------------------------------------------------------------------

const COLORS = {
  relaxed: '#1b7837', simd: '#5aae61', scalar: '#a6dba0', api: '#9970ab', 'api out': '#c2a5cf', js: '#bbbbbb',
  tfjs: '#e08214', 'tfjs xnn': '#b35806', 'tfjs+dataSync': '#fdb863', 'ort-web': '#2166ac', 'ort-node': '#67a9cf',
  transformers: '#d6604d', 'transformers k50': '#f4a582', torch: '#b2182b', 'relaxed sort': '#762a83', 'simd sort': '#c2a5cf',
  'memcpy wasm': '#404040', 'memcpy native': '#878787', 'memcpy new array': '#b0b0b0',
};
const esc = (s) => String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** Horizontal grouped bars, log scale: one group per kernel at size n, one
    bar per candidate, in the family's unit (shorter is faster). */
export function familySvg(fam, n = fam.headline) {
  const rows = fam.rows.filter((r) => r.n === n);
  if (!rows.length) return null;
  const ids = orderIds(new Set(rows.flatMap((r) => Object.keys(r.results))));
  const vals = rows.flatMap((r) => ids.map((id) => inUnit(fam.unit, r.results[id]?.ns_per_elem, r.n))).filter((v) => v > 0);
  const lo = Math.pow(10, Math.floor(Math.log10(Math.min(...vals)))), hi = Math.pow(10, Math.ceil(Math.log10(Math.max(...vals))));
  const bar = 9, gap = 10, left = 170, width = 560, top = 44;
  const groupH = (r) => ids.filter((id) => r.results[id]).length * bar + gap;
  const height = top + rows.reduce((s, r) => s + groupH(r), 0) + 40 + 16 * Math.ceil(ids.length / 4);
  const x = (v) => left + (width * Math.log10(v / lo)) / Math.log10(hi / lo);
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${left + width + 30}" height="${height}" font-family="sans-serif" font-size="11">`,
    `<text x="10" y="18" font-size="14" font-weight="bold">${esc(fam.title)}${rows[0].shape ? `, ${esc(rows[0].shape)}` : `, n = ${esc(pow2Sup(n))}`}</text>`,
    `<text x="10" y="34" fill="#555">${esc(fam.unit)} (log scale; shorter is faster), median of interleaved rounds</text>`];
  for (let d = lo; d <= hi * 1.0001; d *= 10) {
    out.push(`<line x1="${x(d).toFixed(1)}" y1="${top - 4}" x2="${x(d).toFixed(1)}" y2="${height - 34 - 16 * Math.ceil(ids.length / 4)}" stroke="#ddd"/>`);
    out.push(`<text x="${x(d).toFixed(1)}" y="${top - 6}" text-anchor="middle" fill="#555">${d >= 1 ? d : d.toPrecision(1)}</text>`);
  }
  let y = top;
  for (const r of rows) {
    out.push(`<text x="${left - 6}" y="${y + (groupH(r) - gap) / 2 + 4}" text-anchor="end">${esc(r.kernel)}</text>`);
    for (const id of ids) {
      const v = inUnit(fam.unit, r.results[id]?.ns_per_elem, r.n);
      if (v == null) continue;
      out.push(`<rect x="${left}" y="${y}" width="${Math.max(1, x(v) - left).toFixed(1)}" height="${bar - 1}" fill="${COLORS[id] ?? '#999'}"><title>${esc(id)}: ${fmt(v)}</title></rect>`);
      y += bar;
    }
    y += gap;
  }
  const ly = height - 26 - 16 * Math.ceil(ids.length / 4) + 16;
  ids.forEach((id, i) => {
    const lx = 10 + (i % 4) * 180, yy = ly + 16 * Math.floor(i / 4);
    out.push(`<rect x="${lx}" y="${yy - 9}" width="10" height="10" fill="${COLORS[id] ?? '#999'}"/><text x="${lx + 14}" y="${yy}">${esc(id)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}
