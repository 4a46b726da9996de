// The registry's plain-text formulas ("y_i = max(x_i - tau, 0), sum_i y_i = 1")
// as readable math in HTML: subscripts and superscripts, Greek letters, ∑, √,
// ≤ ≥ ≠ ← → ‖ ∼, hats. No TeX engine (KaTeX is not a dependency): the text
// stays the registry's, only its ASCII notation is typeset. Names given in
// `code` (the registry's kernel names, e.g. entmax_bisect) are kept whole as
// <code>, so their underscores are not read as subscripts.

const GREEK = {
  alpha: 'α', beta: 'β', gamma: 'γ', delta: 'δ', epsilon: 'ε', zeta: 'ζ', eta: 'η', theta: 'θ', lambda: 'λ',
  mu: 'μ', nu: 'ν', xi: 'ξ', pi: 'π', rho: 'ρ', sigma: 'σ', tau: 'τ', phi: 'φ', chi: 'χ', psi: 'ψ', omega: 'ω',
  Delta: 'Δ', Lambda: 'Λ', Sigma: 'Σ', Phi: 'Φ', Omega: 'Ω',
};
// Longest first, so "<=" is not read as "<" then "=".
const OPERATORS = [['||', '‖'], ['<=', '≤'], ['>=', '≥'], ['!=', '≠'], ['<-', '←'], ['->', '→'], ['~', '∼'], ['+-', '±']];

const escapeHtml = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

// The index after the group that opens at s[i] ('(' or '{'), or -1 if unbalanced.
function closing(s, i) {
  const open = s[i], close = open === '(' ? ')' : '}';
  let depth = 0;
  for (let j = i; j < s.length; j++) {
    if (s[j] === open) depth++;
    else if (s[j] === close && --depth === 0) return j;
  }
  return -1;
}

// One script argument after '_' or '^' at s[i]: { text, end }. {a b} and, for
// a superscript, (a b) lose their brackets; a subscript keeps (k) (an order
// statistic z_(k)); otherwise a run of letters and digits (1.5 as a number).
function scriptArg(s, i, sup) {
  if (s[i] === '{' || (s[i] === '(' && sup)) {
    const j = closing(s, i);
    if (j > i) return { text: s.slice(i + 1, j), end: j + 1 };
  }
  if (s[i] === '(') {
    const j = closing(s, i);
    if (j > i) return { text: s.slice(i, j + 1), end: j + 1 };
  }
  const m = /^(-?\d+(?:\.\d+)?|[\p{L}\p{N}∞]+'?)/u.exec(s.slice(i));
  return m ? { text: m[1], end: i + m[1].length } : null;
}

// Sub- and superscripts of already escaped text, recursively (x_{y_j}).
function scripts(s) {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if ((c === '_' || c === '^') && i > 0 && !/\s/.test(s[i - 1])) {
      const arg = scriptArg(s, i + 1, c === '^');
      if (arg) {
        const tag = c === '_' ? 'sub' : 'sup';
        out += `<${tag}>${scripts(arg.text)}</${tag}>`;
        i = arg.end - 1;
        continue;
      }
    }
    out += c;
  }
  return out;
}

/**
 * The formula as HTML (inline; wrap it in a block yourself). code: names to
 * keep whole (as <code>), e.g. the registry's kernel names.
 */
export function formulaHtml(text, { code = [] } = {}) {
  // 1. protect the names, longest first, as placeholders no rule touches
  const kept = [];
  let s = String(text);
  const names = [...new Set(code)].filter((n) => n.includes('_')).sort((a, b) => b.length - a.length);
  for (const n of names) {
    s = s.replace(new RegExp(`\\b${n}\\b`, 'g'), () => `\u0000${kept.push(n) - 1}\u0001`);
  }
  // 2. brackets <g, y> as ⟨g, y⟩, operators, then HTML escaping
  s = s.replace(/<([^<>=-]+)>/g, '⟨$1⟩');
  for (const [a, b] of OPERATORS) s = s.split(a).join(b);
  s = s.replace(/(^|[\s(=,;:])-(?=[\s\w(])/g, '$1−');
  s = escapeHtml(s);
  // 3. words: hats (m_hat → m̂), ∑ and √ with their arguments, Greek letters
  // (a word is a run of letters: "tau_i" and "beta1" hold one)
  s = s.replace(/(?<![A-Za-z])([A-Za-z])_hat(?![A-Za-z0-9])/g, '$1\u0302');
  s = s.replace(/(?<![A-Za-z])([A-Za-z]+)(?![A-Za-z])(\s?)/g, (_, w, sp) =>
    (w === 'sum' ? '∑' : w === 'sqrt' ? '√' : w === 'inf' || w === 'Inf' ? `∞${sp}` : `${GREEK[w] ?? w}${sp}`));
  // 4. scripts, then the protected names back
  s = scripts(s).replace(/\{/g, '&#123;').replace(/\}/g, '&#125;'); // set braces: not Vue's {{ }}
  return s.replace(/\u0000(\d+)\u0001/g, (_, i) => `<code>${escapeHtml(kept[+i])}</code>`);
}
