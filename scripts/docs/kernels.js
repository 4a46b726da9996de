// The kernel pages: one per registry entry, all of it from the registry JSON
// (formula, paper, parameters, backward pass), the stated accuracy bounds
// (wasm/analysis/check.js and the registry's relaxed_simd), the views that
// can show it (their schemas), and its line of the committed benchmark run.
import { formulaHtml } from './formula.js';
import { html, md, num, sci, htmlTable, mdTable, codeBlock } from './text.js';
import { kernelRows } from '../bench/tables.js';
import { BOUNDS } from '../../wasm/analysis/check.js';
import { NORMALIZER_REFERENCES, MEASURE_REFERENCES, LOSS_REFERENCES, GOLDEN } from '../../wasm/analysis/reference.js';
import { fmt, fmtE, pow2Sup, inUnit } from '../bench/report.js';

export const FAMILY_TITLES = {
  normalizer: 'Normalizers', sampler: 'Samplers', optimizer: 'Optimizers', quantizer: 'Quantizers',
  measure: 'Measures', loss: 'Losses', attention: 'Attention',
};

/** A parameter's valid range as text: [0, 1), (0, ∞), {a, b} for choices. */
export function paramRange(p) {
  if (p.choices) return p.choices.map((c) => `<code>${html(c)}</code>`).join(', ');
  if (p.type === 'bool') return '0 or 1';
  return `${p.min_open ? '(' : '['}${num(p.min)}, ${num(p.max)}${p.max_open ? ')' : ']'}`;
}
const paramDefault = (p) => (p.choices ? `<code>${html(p.choices[p.default - p.min] ?? p.default)}</code>` : num(p.default));
const paramNote = (p) => [p.n_bound === 'le' ? 'at most n' : p.n_bound === 'lt' ? 'less than n' : '',
  p.log_scale ? 'log-scale slider' : ''].filter(Boolean).join('; ');

/** The accuracy statements that hold for k, as Markdown list items. */
export function accuracyLines(k, bench) {
  const lines = [];
  const bound = BOUNDS[k.family];
  if (k.impls.includes('simd') && bound !== undefined) {
    lines.push(bound === 0 ? 'SIMD and scalar give **bit-identical** results (the same draws, the same codes).'
      : `SIMD against the scalar reference: within **${sci(bound)}** relative to max(1, |value|) (\`softscope check\`).`);
  }
  const ref = NORMALIZER_REFERENCES[k.name] ?? MEASURE_REFERENCES[k.name] ?? LOSS_REFERENCES[k.name];
  if (ref) {
    lines.push(k.family === 'normalizer' ? `Against a float64 reference of the definition: relative error ≤ **${sci(BOUNDS.reference)}** (outputs ≥ 1e-30).`
      : `Against a float64 reference of the definition: within **1e-5** relative.`);
  }
  if (GOLDEN.some((g) => g.kernel === k.name)) lines.push('Golden vectors worked out by hand: within 1e-6.');
  if ((k.family === 'normalizer' && k.output === 'probs') || (k.family === 'sampler' && k.draws !== 'vector')) {
    lines.push(`Sums to one within **${sci(BOUNDS.sum)}**, every entry ≥ 0.`);
  }
  if (k.relaxed_simd) lines.push(`Relaxed SIMD build: ${md(k.relaxed_simd)}`);
  const errs = (bench ?? []).map((r) => r.results.relaxed?.max_rel_err ?? r.results.simd?.max_rel_err).filter((e) => e != null);
  if (errs.length && (k.family === 'normalizer' || k.family === 'loss')) {
    lines.push(`Measured in the benchmark run (max relative error of the SIMD output against float64): ${fmtE(Math.max(...errs))}.`);
  }
  if (!lines.length) lines.push('No stated bound beyond the tests of its C file.');
  return lines.map((l) => `- ${l}`).join('\n');
}

// How to call it, by family: the JS API and the CLI.
const USE = {
  normalizer: (k) => [`const y = ss.normalize('${k.name}', x${k.params.length ? ', { /* params */ }' : ''});`,
    ...(k.has_backward ? [`const dx = ss.normalizeBackward('${k.name}', x, y, g);`] : []),
    ...(k.has_param_backward ? [`const dp = ss.normalizeParamBackward('${k.name}', x, y, g);`] : [])],
  measure: (k) => [k.input === 'probs_pair' ? `const v = ss.measure('${k.name}', p, q);` : `const v = ss.measure('${k.name}', x);`],
  loss: (k) => [`const { loss, grad } = ss.loss('${k.name}', x, { target: 0 });`],
  sampler: (k) => [`const r = ss.sample('${k.name}', x, { seed: 1, draws: 16 });`],
  quantizer: (k) => [`const { output, codes } = ss.quantize('${k.name}', w);`],
  optimizer: (k) => [`const state = ss.optimizerState('${k.name}', w.length);`, `ss.optimize('${k.name}', w, grad, { /* params */ }, state);`],
  attention: (k) => [`const r = ss.attend('${k.name}', { q, k, v, n, m });`],
};
const CLI = { normalizer: 'normalize', measure: 'measure', loss: 'loss', sampler: 'sample', quantizer: 'quantize', optimizer: 'optimize', attention: 'attend' };

function benchTable(rows) {
  if (!rows.length) return 'Not in the committed benchmark run.';
  const ids = ['relaxed', 'simd', 'scalar', 'js'].filter((id) => rows.some((r) => r.results[id]));
  const label = { relaxed: 'relaxed SIMD', simd: 'SIMD128', scalar: 'scalar', js: 'plain JS' };
  const out = mdTable(['n', ...ids.map((id) => label[id])], rows.map((r) => [pow2Sup(r.n),
    ...ids.map((id) => (r.results[id] ? fmt(inUnit(r.unit, r.results[id].ns_per_elem, r.n)) : '—'))]));
  return `${rows[0].unit}, medians of the committed run (\`tests/bench/results/bench.json\`; all peers on the [benchmarks page](../benchmarks.md)):\n\n${out}`;
}

/** A widget showing k: the first of its views (see views.js: showsKernel). */
function widget(k, shows) {
  if (!shows.length) return 'No view shows this kernel; the [views](../views/index.md) show the others of its family.';
  const [first] = shows;
  const tag = `<softscope-widget view="${first.view}" ${first.key}="${html(first.value)}"></softscope-widget>`;
  const list = shows.map((s) => `[${s.view}](../views/${s.view}.md) (\`${s.key}=${s.value}\`)`).join(', ');
  return `${tag}\n\nShown by: ${list}. The widget above is\n\n${codeBlock('html', tag)}`;
}

/**
 * The Markdown page of kernel k. ctx: { names (every kernel name), bench
 * (the run's JSON or null), shows: [{ view, key, value }] }.
 */
export function kernelPage(k, { names, bench, shows }) {
  const rows = bench ? kernelRows(bench, k.family, k.name) : [];
  const params = k.params.length
    ? htmlTable(['name', 'type', 'range', 'default', 'meaning'], k.params.map((p) => [`<code>${html(p.name)}</code>`, p.type,
      paramRange(p), paramDefault(p), html(p.help) + (paramNote(p) ? ` <em>(${paramNote(p)})</em>` : '')]))
    : 'None.';
  const facts = [`family: [${k.family}](./index.md#${k.family})`, `input: ${md(k.input)}`, `output: ${md(k.output)}`,
    `impls: ${md(k.impls.join(', '))}`, ...(k.role ? [`role: ${md(k.role)}`] : []), ...(k.draws ? [`draws: ${md(k.draws)}`] : []),
    ...(k.domain ? [`domain: ${md(k.domain)}`] : []), ...(k.cast_max ? [`largest value: ${num(k.cast_max)}`] : [])];
  const backward = [`- VJP (backward pass): **${k.has_backward ? 'yes' : 'no'}**`,
    ...(k.family === 'normalizer' ? [`- gradient with respect to its parameters: **${k.has_param_backward ? 'yes' : 'no'}**`] : [])];
  return `---
title: ${k.name}
---

# ${k.name}

${md(k.summary)}

${facts.join(' · ')}

## Formula

<div class="formula">${formulaHtml(k.formula, { code: names })}</div>

Plain text, as the registry states it: <code>${md(k.formula)}</code>

## Paper

${md(k.paper)}

## Parameters

${params}

## Accuracy

${accuracyLines(k, rows)}

## Backward pass

${backward.join('\n')}

## Live

${widget(k, shows)}

## Benchmark

${benchTable(rows)}

## Use

${codeBlock('js', USE[k.family]?.(k).join('\n') ?? '')}

${codeBlock('sh', `npx softscope describe ${k.name}${CLI[k.family] ? `\nnpx softscope ${CLI[k.family]} ${k.name} --help` : ''}`)}
`;
}

/** The index of every kernel, by family. */
export function kernelIndex(kernels) {
  const fams = [...new Set(kernels.map((k) => k.family))];
  return `---
title: Kernels
---

# Kernels

Every kernel of the registry (${kernels.length}), by family. Each page is generated from the
registry by \`make docs\`: a kernel added to \`core/src/registry/kernel_list.h\` gets its page.

${fams.map((f) => `## ${f}\n\n${FAMILY_TITLES[f] ?? f}.\n\n${mdTable(['kernel', 'summary', 'parameters', 'backward'],
    kernels.filter((k) => k.family === f).map((k) => [`[${k.name}](./${k.name}.md)`, md(k.summary),
      k.params.map((p) => `\`${p.name}\``).join(', ') || '—', k.has_backward ? 'yes' : '—']))}`).join('\n\n')}
`;
}
