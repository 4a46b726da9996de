// The registry's plain-text formulas ("y_i = max(x_i - tau, 0), sum_i y_i = 1")
// as readable math in HTML: the package's reading of them (formulaParts in
// wasm/figures/formula.js, which the figures and the playground draw too) with
// <sub>, <sup> and <code>. No TeX engine: the text stays the registry's.

import { formulaParts } from '../../wasm/figures/formula.js';

const escapeHtml = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const toHtml = (parts) => parts.map((p) => {
  if (typeof p === 'string') return escapeHtml(p).replace(/\{/g, '&#123;').replace(/\}/g, '&#125;'); // set braces: not Vue's {{ }}
  if (p.code !== undefined) return `<code>${escapeHtml(p.code)}</code>`;
  return p.sub ? `<sub>${toHtml(p.sub)}</sub>` : `<sup>${toHtml(p.sup)}</sup>`;
}).join('');

/**
 * The formula as HTML (inline; wrap it in a block yourself). code: names to
 * keep whole (as <code>), e.g. the registry's kernel names.
 */
export function formulaHtml(text, { code = [] } = {}) {
  return toHtml(formulaParts(text, { code }));
}
