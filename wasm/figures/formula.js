// The registry's plain-text formulas ("y_i = max(x_i - tau, 0), sum_i y_i = 1")
// read as math: subscripts and superscripts, Greek letters, ∑, √,
// − ≤ ≥ ≠ ← → ‖ ∼ ⟨ ⟩, hats. No TeX engine: the text stays the registry's
// (C), only its ASCII notation is typeset, at render time. formulaParts()
// gives the parts every output draws: a figure's SVG text (Formula in
// math.js), the playground's HTML (web/src/components/Formula.jsx) and the
// docs (scripts/docs/formula.js).

const GREEK = {
  alpha: 'α', beta: 'β', gamma: 'γ', delta: 'δ', epsilon: 'ε', zeta: 'ζ', eta: 'η', theta: 'θ', lambda: 'λ',
  mu: 'μ', nu: 'ν', xi: 'ξ', pi: 'π', rho: 'ρ', sigma: 'σ', tau: 'τ', phi: 'φ', chi: 'χ', psi: 'ψ', omega: 'ω',
  Delta: 'Δ', Lambda: 'Λ', Sigma: 'Σ', Phi: 'Φ', Omega: 'Ω',
};
// Longest first, so "<=" is not read as "<" then "=".
const OPERATORS = [['||', '‖'], ['<=', '≤'], ['>=', '≥'], ['!=', '≠'], ['<-', '←'], ['->', '→'], ['~', '∼'], ['+-', '±']];

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
// statistic z_(k)); a lone + (a positive part [z]_+); otherwise a run of
// letters and digits (1.5 as a number), each after a minus sign if there is one.
function scriptArg(s, i, sup) {
  if (s[i] === '-') { // a negative power: 2^-q, 2^-(b - 1) (its brackets kept)
    const j = s[i + 1] === '(' ? closing(s, i + 1) : -1;
    const arg = j > i ? { text: s.slice(i + 1, j + 1), end: j + 1 } : scriptArg(s, i + 1, sup);
    return arg && { text: `−${arg.text}`, end: arg.end };
  }
  if (s[i] === '+') return { text: '+', end: i + 1 }; // a positive part [z]_+
  if (s[i] === '{' || (s[i] === '(' && sup)) {
    const j = closing(s, i);
    if (j > i) return { text: s.slice(i + 1, j), end: j + 1 };
  }
  if (s[i] === '(') {
    const j = closing(s, i);
    if (j > i) return { text: s.slice(i, j + 1), end: j + 1 };
  }
  const m = /^(\d+(?:\.\d+)?|[\p{L}\p{N}∞]+'?)/u.exec(s.slice(i));
  return m ? { text: m[1], end: i + m[1].length } : null;
}

// Sub- and superscripts, recursively (x_{y_j}): the parts of s.
function scripts(s) {
  const out = [];
  let text = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if ((c === '_' || c === '^') && i > 0 && !/\s/.test(s[i - 1])) {
      const arg = scriptArg(s, i + 1, c === '^');
      if (arg) {
        if (text) out.push(text);
        text = '';
        out.push({ [c === '_' ? 'sub' : 'sup']: scripts(arg.text) });
        i = arg.end - 1;
        continue;
      }
    }
    text += c;
  }
  if (text) out.push(text);
  return out;
}

// The protected names (placeholders \0 k \1) back, as { code } parts.
const unprotect = (parts, kept) => parts.flatMap((p) => {
  if (typeof p !== 'string') return p.sub ? { sub: unprotect(p.sub, kept) } : { sup: unprotect(p.sup, kept) };
  return p.split(/\u0000(\d+)\u0001/).map((t, j) => (j % 2 ? { code: kept[+t] } : t)).filter((t) => t !== '');
});

/**
 * A plain-text formula as parts: strings (Unicode math), { sub: parts },
 * { sup: parts } and { code: name } (a name kept whole: those given in
 * `code`, e.g. the registry's kernel names, and identifiers with two or more
 * underscores such as rne_sat_e4m3, whose underscores are not subscripts).
 */
export function formulaParts(text, { code = [] } = {}) {
  // 1. hats (m_hat → m̂, S_hat_j → Ŝ_j), then the names, longest first, as placeholders no rule touches
  let s = String(text).replace(/(?<![A-Za-z])([A-Za-z])_hat(?![A-Za-z0-9])/g, '$1\u0302');
  const kept = [];
  const keep = (n) => `\u0000${kept.push(n) - 1}\u0001`;
  const names = [...new Set(code)].filter((n) => n.includes('_')).sort((a, b) => b.length - a.length);
  for (const n of names) s = s.replace(new RegExp(`\\b${n}\\b`, 'g'), keep);
  s = s.replace(/(?<!\w)[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+){2,}(?!\w)/g, keep);
  // 2. brackets <g, y> as ⟨g, y⟩, operators, a minus sign
  s = s.replace(/<([^<>=-]+)>/g, '⟨$1⟩');
  for (const [a, b] of OPERATORS) s = s.split(a).join(b);
  s = s.replace(/(^|[\s(=,;:])-(?=[\s\w(])/g, '$1−');
  // 3. words: ∑ and √ with their arguments, ∞, Greek letters (a word is a run
  // of letters: "tau_i" and "beta1" hold one)
  s = s.replace(/(?<![A-Za-z])([A-Za-z]+)(?![A-Za-z])(\s?)/g, (_, w, sp) =>
    (w === 'sum' ? '∑' : w === 'sqrt' ? '√' : w === 'inf' || w === 'Inf' ? `∞${sp}` : `${GREEK[w] ?? w}${sp}`));
  // a minus between operands (1-b1, α-1, b-1), not a hyphen (8-bit, k-th, k-means)
  s = s.replace(/(?<=(?:^|[^\p{L}])\p{L}|[\d)\]])-(?=[\d(]|\p{L}(?!\p{L}))/gu, '−');
  // 4. scripts, then the protected names back
  return unprotect(scripts(s), kept);
}

/**
 * The lines of a formula at most `chars` characters long, broken at spaces
 * outside brackets (a script's argument stays on its line); each line is
 * typeset on its own. The count is of the plain text, which is never
 * shorter than the typeset line.
 */
export function formulaLines(text, chars) {
  const words = [];
  let word = '', depth = 0;
  for (const c of String(text)) {
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth = Math.max(0, depth - 1);
    if (c === ' ' && depth === 0) { words.push(word); word = ''; } else word += c;
  }
  words.push(word);
  const lines = [];
  let line = '';
  for (const w of words.filter((x) => x !== '')) {
    if (line && line.length + 1 + w.length > chars) { lines.push(line); line = w; } else line = line ? `${line} ${w}` : w;
  }
  if (line) lines.push(line);
  return lines;
}
