// Text that fits a width: SVG does not wrap, so a figure breaks long notes
// into lines itself, by an estimate of the glyph width (0.56 em, the average
// of the sans-serif fonts the figures use; digits and capitals are wider,
// so the estimate leaves a margin).

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
