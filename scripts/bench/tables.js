// The benchmark tables as Markdown, from the JSON of a `make bench` run: the
// README's headline and the docs site's benchmarks page are both filled from
// here (tests/bench/readme-tables.js, scripts/gen-docs.js), so no figure is
// typed by hand. A section is the text between
//   <!-- bench:NAME -->  and  <!-- /bench:NAME -->
// for NAME in: machine, softmax, targets, and one per family (normalizer,
// sampler, quantizer, optimizer, measure, loss, attention, training).
import { bestPeer, fmt, fmtE, fmtX, inUnit, orderIds, pow2Sup, ratio } from './report.js';
import { fmtTarget } from './targets.js';

const md = (rows) => [`| ${rows[0].join(' | ')} |`, `|${rows[0].map(() => '---').join('|')}|`, ...rows.slice(1).map((r) => `| ${r.join(' | ')} |`)].join('\n');

export const NAMES = {
  relaxed: 'softscope relaxed', simd: 'softscope SIMD', scalar: 'softscope scalar', api: '`ss.normalize` (copies)', 'api out': '`ss.normalize` into `{ out }`', js: 'plain JS',
  tfjs: 'tfjs-wasm', 'tfjs xnn': 'tfjs-wasm, operands pre-transposed (XNNPACK)', 'tfjs+dataSync': 'tfjs-wasm + `dataSync`', 'ort-web': 'onnxruntime-web', 'ort-node': 'onnxruntime-node',
  transformers: 'transformers.js', 'transformers k50': 'transformers.js, top_k 50', 'memcpy wasm': 'wasm `memory.copy`', 'memcpy native': 'native memcpy',
  'memcpy new array': 'new array + memcpy (`x.slice()`)',
  'relaxed sort': 'relaxed, sort method', 'simd sort': 'SIMD, sort method', torch: 'PyTorch eager (1 thread)',
};

// a family's own names where the API call is not ss.normalize
const FAMILY_NAMES = { sampler_rows: { api: '`ss.sample` with `{ rows }` (copies)' } };

/** { NAME: () => markdown } for every section the run res has. */
export function benchSections(res) {
  const row = (fam, kernel, n) => res.families[fam]?.rows.find((r) => r.kernel === kernel && r.n === n);

  function machine() {
    const m = res.machine, s = res.settings;
    return `Measured ${m.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, shared), Node ${m.node}, git ${m.git}; ` +
      `${s.quick ? 'QUICK run; ' : ''}medians of ${s.rounds} interleaved rounds (normalizers: ${res.families.normalizer?.rounds ?? s.rounds}) of ~${s.roundMs} ms per candidate, ${s.clock} clock` +
      `${res.merged ? ` (families ${res.merged.rerun.join(', ')} rerun into the run of ${res.merged.from.slice(0, 16)})` : ''}. ` +
      `Peers: ${Object.entries(s.peers).map(([k, v]) => `${k} ${v}`).join('; ')}.`;
  }

  // The headline: softmax at the target sizes, every candidate, with bytes/s.
  function softmax() {
    const fam = res.families.normalizer;
    const ns = [...new Set(fam.rows.filter((r) => r.kernel === 'softmax').map((r) => r.n))];
    const ids = orderIds(new Set(ns.flatMap((n) => Object.keys(row('normalizer', 'softmax', n).results))));
    const out = [['n', ...ids.map((id) => NAMES[id] ?? id), 'relaxed vs tfjs', 'max rel err: softscope / tfjs / ort-web / ort-node']];
    for (const n of ns) {
      const r = row('normalizer', 'softmax', n).results, t = (id) => r[id]?.ns_per_elem;
      out.push([pow2Sup(n), ...ids.map((id) => (r[id] ? `${fmt(t(id))} (${r[id].gbps.toFixed(1)} GB/s)` : '—')), fmtX(ratio(t('tfjs'), t('relaxed'))),
        ['relaxed', 'tfjs', 'ort-web', 'ort-node'].map((id) => fmtE(r[id]?.max_rel_err)).join(' / ')]);
    }
    return `ns per element (GB/s: 8 bytes per element, x read and y written, as memcpy of n floats)\n\n${md(out)}`;
  }

  // The README's one table: softmax at 2^20 against its peers, ns per element.
  function headline() {
    const fam = res.families.normalizer;
    const n = fam.rows.some((r) => r.kernel === 'softmax' && r.n === 2 ** 20) ? 2 ** 20 : fam.rows.find((r) => r.kernel === 'softmax').n;
    const r = row('normalizer', 'softmax', n).results;
    const ids = orderIds(new Set(Object.keys(r))).filter((id) => r[id]?.ns_per_elem != null);
    const out = [['softmax, n = ' + pow2Sup(n), 'ns per element', 'GB/s', 'max rel err']];
    for (const id of ids) out.push([NAMES[id] ?? id, fmt(r[id].ns_per_elem), r[id].gbps.toFixed(1), fmtE(r[id].max_rel_err)]);
    return md(out);
  }

  function family(name) {
    const fam = res.families[name];
    const ids = orderIds(new Set(fam.rows.flatMap((r) => Object.keys(r.results)))).filter((id) => !id.startsWith('memcpy'));
    const hasErr = fam.rows.some((r) => r.results.relaxed?.max_rel_err != null);
    const label = (id) => FAMILY_NAMES[name]?.[id] ?? NAMES[id] ?? id;
    // matmul: each candidate's fraction of the FMA loop's GFLOP/s
    const peakIds = ids.filter((id) => fam.rows.some((r) => r.ofPeak?.[id] != null));
    const out = [['kernel', 'n', ...ids.map(label), 'relaxed / SIMD', 'SIMD / scalar', 'vs plain JS', 'vs fastest peer',
      ...(hasErr ? ['max rel err'] : []), ...(peakIds.length ? [`of peak (${peakIds.join(' / ')})`] : [])]];
    for (const r of fam.rows) {
      if (r.error) continue;
      const t = (id) => r.results[id]?.ns_per_elem ?? null, lead = t('relaxed') ?? t('simd'), best = bestPeer(r);
      out.push([r.kernel, r.shape ?? pow2Sup(r.n), ...ids.map((id) => fmt(inUnit(fam.unit, t(id), r.n))), fmtX(ratio(t('simd'), t('relaxed'))),
        fmtX(ratio(t('scalar'), t('simd'))), fmtX(ratio(t('js'), lead)), best ? `${fmtX(ratio(best.ns, lead))} (${best.id})` : '—',
        ...(hasErr ? [fmtE(r.results.relaxed?.max_rel_err ?? r.results.simd?.max_rel_err)] : []),
        ...(peakIds.length ? [peakIds.map((id) => (r.ofPeak?.[id] == null ? '—' : `${(100 * r.ofPeak[id]).toFixed(0)} %`)).join(' / ')] : [])]);
    }
    return `${fam.unit}; input: ${fam.input}\n\n${md(out)}`;
  }

  function targets() {
    return res.targets.map((tg) => {
      const vals = tg.values.map((v) => `${typeof v.at === 'string' ? v.at : pow2Sup(v.at)}: ${fmtTarget(tg, v.value)}`).join(', ');
      return `- **${tg.status}** — ${tg.name} ${tg.want}: ${vals}${tg.note ? ` (${tg.note})` : ''}`;
    }).join('\n');
  }

  return { machine, softmax, headline, targets, ...Object.fromEntries(Object.keys(res.families).map((f) => [f, () => family(f)])),
    ...(res.families.training ? { training: () => trainingTable(res) } : {}) };
}

// Issues 27 and 35: a training step of the tiny model and of the baby GPT in
// each build, in PyTorch (a child process, the same clock; on OpenBLAS, or
// its time without a ratio) and TF.js (the baby GPT), ms per step, the
// ratios, and the baby GPT's wasm memory.
function trainingTable(res) {
  const fam = res.families.training;
  if (fam.note) return `(skipped: ${fam.note})`;
  const refId = 'torch (reference BLAS)';
  const hasRef = fam.rows.some((r) => r.results[refId]), hasTf = fam.rows.some((r) => r.results.tfjs);
  const out = [['model', 'softscope relaxed', 'softscope SIMD', 'softscope scalar', NAMES.torch, ...(hasRef ? ['PyTorch on the reference BLAS'] : []),
    'relaxed vs PyTorch', 'SIMD vs PyTorch', ...(hasTf ? ['TF.js (wasm)', 'relaxed vs TF.js'] : []), 'SIMD / scalar']];
  const notes = [];
  for (const r of fam.rows) {
    if (r.error) continue;
    const t = (id) => r.results[id]?.ns_per_elem ?? null, ms = (id) => fmt(inUnit(fam.unit, t(id), r.n));
    const vsTorch = (id) => (r.results[refId] ? 'no ratio' : fmtX(ratio(t('torch'), t(id))));
    out.push([r.shape, ms('relaxed'), ms('simd'), ms('scalar'), ms('torch'), ...(hasRef ? [ms(refId)] : []), vsTorch('relaxed'), vsTorch('simd'),
      ...(hasTf ? [ms('tfjs'), fmtX(ratio(t('tfjs'), t('relaxed')))] : []), fmtX(ratio(t('scalar'), t('simd')))]);
    for (const [id, why] of Object.entries(r.notes ?? {})) notes.push(`${NAMES[id] ?? id}: ${why} (${r.shape})`);
    for (const [id, m] of Object.entries(r.memory ?? {}))
      if (m) notes.push(`${r.shape}, ${NAMES[id] ?? id}: ${(m.heapBytes / 2 ** 20).toFixed(1)} MB of wasm memory in a fresh instance after createModel and one step (parameters ${(m.paramBytes / 2 ** 20).toFixed(1)} MB, workspace ${(m.workspaceBytes / 2 ** 20).toFixed(1)} MB; target <= 64 MB)`);
    if (r.rounds) notes.push(`${r.shape}: medians of ${r.rounds} rounds of ${r.units} steps (after 15 steps of warm-up)${r.results.torch ?? r.results[refId] ? `; PyTorch ${r.results.torch?.repeats ?? r.results[refId].repeats} repeats of ${r.results.torch?.steps ?? r.results[refId].steps} steps` : ''}`);
  }
  const torch = res.settings.peers?.torch, tr = fam.rows.find((r) => r.results.torch ?? r.results[refId]);
  const trr = tr && (tr.results.torch ?? tr.results[refId]);
  return `${fam.unit}; ${fam.title}; input: ${fam.input}. Medians of ${fam.rounds} interleaved rounds (${res.settings.clock} clock)` +
    `${torch && trr ? `; PyTorch ${torch}: \`tests/bench/torch_step.py\` in a child process right after them, the median of ${trr.repeats} repeats of ${trr.steps} steps on its process's ${res.settings.clock === 'cpu' ? `CPU clock (every thread; its wall clock gave ${fmt(trr.wall_ms_per_step)} ms on the ${tr.shape} row)` : 'wall clock'}` : ''}` +
    `\n\n${md(out)}${notes.length ? `\n\n${notes.join('\n\n')}` : ''}`;
}

/** The sections comparing the Node run (res) with the Chromium run of
    `make bench-browser` (browser): browser-machine and side-by-side (softmax
    (side-by-side-log: log-softmax), one vector: the relaxed kernel, tfjs and
    the API, ns per element and ratios, each engine's own run),
    side-by-side-rows (the rows table: the kernel vs tf.softmax, { rows, out }
    vs tf.softmax + dataSync) and side-by-side-batch (batch top-p: the kernel
    vs transformers.js at top_k 0 and 50, and plain JS). */
export function browserSections(res, browser) {
  const b = browser.machine.browser;
  const rowOf = (r, k, n) => r.families.normalizer?.rows.find((x) => x.kernel === k && x.n === n)?.results ?? null;
  function browserMachine() {
    const s = browser.settings, m = browser.machine;
    const ver = b.version ?? /Chrome\/([\d.]+)/.exec(b.ua)?.[1];
    return `Chromium: measured ${m.date.slice(0, 10)} on ${m.cpu} (${m.cores} cores, shared; load ${m.loadavg[0].toFixed(1)}), Chromium ${ver} headless${b.args.length ? ` (${b.args.join(' ')})` : ''}, ` +
      `git ${m.git}, one page (\`make bench-browser\`); ${s.quick ? 'QUICK run; ' : ''}${s.estimator === 'min' ? 'the fastest' : 'medians'} of ${browser.families.normalizer?.rounds ?? s.rounds} interleaved rounds of ~${s.roundMs} ms per candidate, wall clock (a page has no CPU clock). ` +
      `Peers in the page: ${Object.entries(s.peers).map(([k, v]) => `${k} ${v}`).join('; ')}.` +
      (browser.merged ? ` Rerun into it on ${browser.merged.from.slice(0, 10)} (load ${browser.merged.machine.loadavg[0].toFixed(1)}, git ${browser.merged.machine.git}): ${browser.merged.rerun.join(', ')}.` : '');
  }
  function sideBySide(kernels) {
    const out = [];
    for (const k of kernels) {
      const ns = [...new Set([res, browser].flatMap((r) => r.families.normalizer?.rows.filter((x) => x.kernel === k).map((x) => x.n) ?? []))]
        .filter((n) => rowOf(browser, k, n)).sort((p, q) => p - q);
      if (!ns.length) continue;
      const head = [`${k}, n`];
      for (const e of ['Node', 'Chromium']) head.push(`${e}: relaxed`, `${e}: tfjs-wasm`, `${e}: kernel vs tfjs`, `${e}: \`ss.normalize\` into \`{ out }\` vs tfjs + \`dataSync\``);
      const tab = [head];
      for (const n of ns) {
        const line = [pow2Sup(n)];
        for (const r of [rowOf(res, k, n), rowOf(browser, k, n)]) {
          const t = (id) => r?.[id]?.ns_per_elem ?? null;
          line.push(fmt(t('relaxed')), fmt(t('tfjs')), fmtX(ratio(t('tfjs'), t('relaxed'))), fmtX(ratio(t('tfjs+dataSync'), t('api out'))));
        }
        tab.push(line);
      }
      out.push(md(tab));
    }
    return `ns per element; ratios > 1 mean softscope is faster; each engine's ratios come from its own run (candidates side by side in one process or one page)\n\n${out.join('\n\n')}`;
  }
  // the tables of shapes (rows, sampler_rows): per shape both engines'
  // kernel time and its ratios to the columns named in `vs` ([id, label])
  function sideByShape(fam, kernel, unit, vs) {
    const rowsOf = (r) => r.families[fam]?.rows.filter((x) => x.kernel === kernel && !x.error) ?? [];
    const shapes = rowsOf(browser).map((x) => x.shape);
    if (!shapes.length) return `(no ${fam} table in the Chromium run)`;
    const head = [`${kernel}, rows x n`];
    for (const e of ['Node', 'Chromium']) head.push(`${e}: relaxed (${unit})`, ...vs.map(([, label]) => `${e}: ${label}`));
    const tab = [head];
    for (const sh of shapes) {
      const line = [sh];
      for (const r of [res, browser]) {
        const x = rowsOf(r).find((y) => y.shape === sh), t = (id) => x?.results[id]?.ns_per_elem ?? null;
        line.push(fmt(inUnit(unit, t('relaxed'), x?.n)), ...vs.map(([id, , lead = 'relaxed']) => fmtX(ratio(t(id), t(lead)))));
      }
      tab.push(line);
    }
    return `ratios > 1 mean softscope is faster; each engine's ratios come from its own run\n\n${md(tab)}`;
  }
  // issue 27: the training step in both engines, each its own run's figure
  // (PyTorch: Node only), and the Chromium run's time to 95 %
  function sideTraining() {
    const rowOf = (r) => r.families.training?.rows.find((x) => x.kernel === 'step' && !x.error);
    const nr = rowOf(res), cr = rowOf(browser);
    if (!cr) return '(no training table in the Chromium run)';
    const ms = (x, id) => (x?.results[id]?.ns_per_elem != null ? x.results[id].ns_per_elem / 1e6 : null);
    const tab = [['model', 'Node: relaxed', 'Node: SIMD', `Node: ${NAMES.torch}`, 'Chromium: relaxed', 'Chromium: SIMD', 'Chromium: scalar'],
      [cr.shape, fmt(ms(nr, 'relaxed')), fmt(ms(nr, 'simd')), fmt(ms(nr, 'torch')), fmt(ms(cr, 'relaxed')), fmt(ms(cr, 'simd')), fmt(ms(cr, 'scalar'))]];
    return `ms per step (Node: medians on the CPU clock; Chromium: ${browser.settings.estimator === 'min' ? 'the fastest round' : 'medians'}, wall clock)\n\n${md(tab)}`;
  }
  function experiment() {
    const e = browser.experiment;
    if (!e) return '(no time-to-95 % run in the Chromium run)';
    if (e.missing) return `(not run: ${e.missing})`;
    const sec = (v) => (v == null ? '—' : `${(v / 1000).toFixed(1)} s`);
    const tab = [['normalizer', 'first training window ≥ 95 % (step)', 'wall time from Train', `test accuracy at n = ${e.trainN[1]}`, 'tested at'],
      ...e.runs.map((r) => [r.name, r.reached ?? (r.diverged != null ? `diverged at ${r.diverged}` : 'not reached'), sec(r.reachedMs),
        r.testAccuracy == null ? '—' : `${(100 * r.testAccuracy).toFixed(1)} %`, sec(r.testedMs)])];
    const st = e.state;
    return `The Experiments view's default state (${st.task}, ${st.normalizers.join(', ')} side by side; d = ${st.d}, ${st.heads} heads, ` +
      `${st.layers} layer${st.layers > 1 ? 's' : ''}${st.mlp ? ', MLP' : ''}, ${st.optimizer}, ${st.steps} steps of batch ${st.batch}, trainN = [${e.trainN}]) run by its own stepper in the page ` +
      `(${e.build} build, slices of ${e.sliceMs} ms), wall clock from its start${e.loadavg ? ` (load ${e.loadavg[0].toFixed(1)})` : ''}: ` +
      `every normalizer at 95 % after **${e.seconds == null ? '—' : `${e.seconds.toFixed(1)} s`}** (target ≤ 20 s); training done after ${e.trainSeconds == null ? '—' : `${e.trainSeconds.toFixed(1)} s`}.\n\n${md(tab)}`;
  }
  return {
    'side-by-side-training': sideTraining, experiment,
    'browser-machine': browserMachine, 'side-by-side': () => sideBySide(['softmax']), 'side-by-side-log': () => sideBySide(['log_softmax']),
    'side-by-side-rows': () => sideByShape('rows', 'softmax', 'ns per element',
      [['tfjs', 'kernel vs tfjs'], ['tfjs+dataSync', '`{ rows, out }` vs tfjs + `dataSync`', 'api out']]),
    'side-by-side-batch': () => sideByShape('sampler_rows', 'top_p', 'us per batch',
      [['transformers', 'vs transformers.js (top_k 0)'], ['transformers k50', 'vs transformers.js (top_k 50)'], ['js', 'vs plain JS']]),
  };
}

/** The text with every <!-- bench:NAME --> section it holds filled from sections. */
export function fillSections(text, sections) {
  let out = text;
  for (const [name, make] of Object.entries(sections)) {
    const re = new RegExp(`(<!-- bench:${name} -->\\n)[\\s\\S]*?(<!-- /bench:${name} -->)`);
    if (re.test(out)) out = out.replace(re, (_, a, b) => `${a}${make()}\n${b}`);
  }
  return out;
}

/** One kernel's rows of the run: [{ n, unit, results }] (its family's unit, e.g. 'ns per element'). */
export function kernelRows(res, family, kernel) {
  const fam = res.families[family];
  return fam ? fam.rows.filter((r) => r.kernel === kernel && !r.error).map((r) => ({ n: r.n, unit: fam.unit, results: r.results })) : [];
}
