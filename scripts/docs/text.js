// Text from the registry, the views and the sources, made safe for a
// VitePress page: Markdown reads * _ | and VitePress compiles pages as Vue
// templates ({{ }} and tags), so registry strings go through these.

/** Text inside raw HTML (a table cell, a paragraph of ours). */
export const html = (s) => String(s ?? '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
  .replace(/"/g, '&quot;').replace(/\{/g, '&#123;').replace(/\}/g, '&#125;');

/** Text inside Markdown (a table cell, a list item). */
export const md = (s) => html(s).replace(/([\\`*_|[\]])/g, '\\$1');

/** A fenced code block (VitePress keeps Vue out of fenced code). */
export const codeBlock = (lang, text) => `\`\`\`${lang}\n${String(text).replace(/\n+$/, '')}\n\`\`\``;

/** A number as the registry states it: integers plainly, ±∞, others in 6 significant digits. */
export function num(v) {
  if (v === null || v === undefined) return '';
  if (typeof v !== 'number') return String(v);
  if (v === Infinity || v >= 1e300) return '∞';
  if (v === -Infinity || v <= -1e300) return '−∞';
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  return String(+v.toPrecision(6));
}

/** A small bound as written in the sources: 2e-6, 1e-5 (not 0.000002). */
export const sci = (v) => (v !== 0 && Math.abs(v) < 1e-3 ? v.toExponential().replace(/\.?0*e/, 'e').replace('e+', 'e') : String(v));

/** An HTML table (no blank line inside, so Markdown leaves it alone). */
export function htmlTable(head, rows) {
  const tr = (cells, tag) => `<tr>${cells.map((c) => `<${tag}>${c}</${tag}>`).join('')}</tr>`;
  return `<table>\n<thead>${tr(head, 'th')}</thead>\n<tbody>\n${rows.map((r) => tr(r, 'td')).join('\n')}\n</tbody>\n</table>`;
}

/** A Markdown table of already safe cells. */
export const mdTable = (head, rows) => [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`,
  ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
