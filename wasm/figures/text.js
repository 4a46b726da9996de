// Text that fits a width: SVG does not wrap, so a figure breaks long notes
// into lines itself, by an estimate of the glyph width (0.56 em, about the
// average of the sans-serif fonts the figures use), and titles put their
// subtitle on the same line when it fits, else below.
import { html } from './h.js';
import { Text } from './axes.js';

/** A no-break space: resvg drops an ordinary space at the start or end of a <tspan>. */
export const SP = '\u00a0';
/** The line height of 10.5–12 px notes. */
export const LINE = 14;

/** The number of characters of `size` px text that fit in `width` px. */
export const charsIn = (width, size = 11) => Math.max(8, Math.floor(width / (size * 0.56)));

/** `text` broken at spaces into lines of at most charsIn(width, size) characters. */
export function wrap(text, width, size = 11) {
  const max = charsIn(width, size);
  const lines = [];
  let line = '';
  for (const word of String(text).split(' ')) {
    if (line && line.length + 1 + word.length > max) { lines.push(line); line = word; } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** A bold title and a muted subtitle at left margin `pad`: { inline, lines, height }, one line when they fit, else the subtitle wrapped below. */
export function titleLines(title, sub, width, pad = 12) {
  const room = width - 2 * pad;
  if (title.length + sub.length + 3 <= charsIn(room, 12)) return { inline: true, lines: [sub], height: 24 };
  const lines = wrap(sub, room, 11);
  return { inline: false, lines, height: 22 + LINE * lines.length };
}

/** The title titleLines laid out, its top at y. */
export function Title({ t, title, y, th, pad = 12 }) {
  return html`<g>
    <${Text} x=${pad} y=${y + 17} th=${th} weight="600">${title}${t.inline ? html`<tspan fill=${th.muted} font-weight="400">${`${SP}— ${t.lines[0]}`}</tspan>` : ''}</${Text}>
    ${!t.inline && t.lines.map((l, i) => html`<${Text} key=${i} x=${pad} y=${y + 32 + LINE * i} th=${th} size=${11} color=${th.muted}>${l}</${Text}>`)}
  </g>`;
}
