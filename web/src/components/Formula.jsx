// A registry formula (plain text from C, e.g. "w <- w - lr g / (sqrt(s) + eps)")
// typeset as HTML: the package's reading of it (formulaParts, the same the
// figures and the docs draw) with <sub>, <sup> and <code> for names.
import { formulaParts } from 'softscope/figures';

const parts = (ps) => ps.map((p, i) => {
  if (typeof p === 'string') return p;
  if (p.code !== undefined) return <code key={i}>{p.code}</code>;
  return p.sub ? <sub key={i}>{parts(p.sub)}</sub> : <sup key={i}>{parts(p.sup)}</sup>;
});

/** text: the registry's formula; the plain text stays the element's title (what the CLI and the registry say). */
export function Formula({ text, code }) {
  return <span class="formula" title={text} data-formula>{parts(formulaParts(text, { code }))}</span>;
}
