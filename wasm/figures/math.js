// Math as SVG text: the parts of a formula (formula.js reads the registry's
// plain text into them; a figure may also write them itself) drawn in
// Unicode. A script is its Unicode script characters when every character
// has one (xᵢ, x², ₜ₋₁), else a smaller <tspan> raised or lowered by dy, so
// the SVG stays standalone: no stylesheet, no web font, no foreignObject.
import { html } from './h.js';

// Script characters: digits, signs and the letters most fonts carry in
// these forms. A script with any other character is drawn as a raised or
// lowered run of smaller text instead.
const SUB = {
  0: '₀', 1: '₁', 2: '₂', 3: '₃', 4: '₄', 5: '₅', 6: '₆', 7: '₇', 8: '₈', 9: '₉', '+': '₊', '−': '₋', '-': '₋', '=': '₌', '(': '₍', ')': '₎',
  a: 'ₐ', e: 'ₑ', h: 'ₕ', i: 'ᵢ', j: 'ⱼ', k: 'ₖ', l: 'ₗ', m: 'ₘ', n: 'ₙ', o: 'ₒ', p: 'ₚ', r: 'ᵣ', s: 'ₛ', t: 'ₜ', u: 'ᵤ', v: 'ᵥ', x: 'ₓ',
};
const SUP = {
  0: '⁰', 1: '¹', 2: '²', 3: '³', 4: '⁴', 5: '⁵', 6: '⁶', 7: '⁷', 8: '⁸', 9: '⁹', '+': '⁺', '−': '⁻', '-': '⁻', '=': '⁼', '(': '⁽', ')': '⁾',
  i: 'ⁱ', n: 'ⁿ', T: 'ᵀ',
};

/** text in Unicode subscript (kind 'sub') or superscript ('sup') characters, or null when one has no such form. */
export function scriptChars(text, kind = 'sub') {
  const map = kind === 'sup' ? SUP : SUB;
  let out = '';
  for (const c of String(text)) {
    if (!map[c]) return null;
    out += map[c];
  }
  return out;
}

// The parts as runs of text at a baseline shift and a scale (of the font
// size): a script in script characters stays on the line.
function runs(parts, at = { shift: 0, scale: 1 }, out = []) {
  for (const p of parts) {
    if (typeof p === 'string' || p.code !== undefined) {
      const code = p.code !== undefined;
      const last = out[out.length - 1];
      if (last && !code && !last.code && last.shift === at.shift && last.scale === at.scale) last.text += p;
      else out.push({ text: code ? p.code : p, code, ...at });
      continue;
    }
    const kind = p.sub ? 'sub' : 'sup';
    const chars = p[kind].every((q) => typeof q === 'string') ? scriptChars(p[kind].join(''), kind) : null;
    if (chars) runs([chars], at, out);
    else runs(p[kind], { shift: at.shift + (kind === 'sub' ? 0.3 : -0.42) * at.scale, scale: at.scale * 0.75 }, out);
  }
  return out;
}

const MONO = 'ui-monospace, Menlo, Consolas, monospace';

/**
 * Math parts (formula.js) as SVG text content, the end of a <text> of font
 * size `size`. A script without script characters is a smaller <tspan>
 * moved by dy (every SVG renderer reads dy; not all read baseline-shift),
 * and the text after it is moved back.
 */
export function Formula({ parts, size = 12 }) {
  let at = 0;
  const px = (v) => Math.round(v * size * 100) / 100;
  return html`${runs(parts).map((r, i) => {
    const dy = px(r.shift - at);
    at = r.shift;
    const plain = dy === 0 && r.scale === 1 && !r.code;
    return plain ? r.text : html`<tspan key=${i} dy=${dy || undefined} font-size=${r.scale !== 1 ? px(r.scale) : undefined}
      font-family=${r.code ? MONO : undefined} data-code=${r.code ? '1' : undefined}>${r.text}</tspan>`;
  })}`;
}
