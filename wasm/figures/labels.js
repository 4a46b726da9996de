// Value labels that never overlap: each candidate label is a box (its
// number's width, an upper bound from the widest usual font, and the font's
// height about its baseline); the labels are taken by priority (the bar
// being edited first, then the largest values) and a label whose box would
// touch one already taken, or a mark it must not cover (the other bars), is
// left out. The playground's logit editor draws the labels this keeps.

// Advance widths in em of DejaVu Sans, the widest of the sans-serif fonts a
// figure may get (Helvetica, Arial, Segoe UI and Roboto are narrower), so a
// width from them is an upper bound: a digit 0.64, a point or comma 0.4,
// anything else of a number (− + e ∞) at most 0.84.
const advance = (c) => (c >= '0' && c <= '9' ? 0.64 : c === '.' || c === ',' ? 0.4 : 0.84);

// An upper bound of the width of a number's text (as fmt writes it) at `size` px.
const numberWidth = (text, size = 11) => [...String(text)].reduce((w, c) => w + advance(c), 0) * size;

// The height of a line of figures about its baseline, in em: digits rise
// about 0.73 em (DejaVu Sans), signs and ∞ stay within.
const ASCENT = 0.78, DESCENT = 0.06;

// Whether boxes a and b come closer than gap.
const touch = (a, b, gap) => a.x0 < b.x1 + gap && b.x0 < a.x1 + gap && a.y0 < b.y1 + gap && b.y0 < a.y1 + gap;

/**
 * The labels to draw: cands [{ x (its centre), y (its baseline), text (a
 * number), size (px), priority (higher first) }] -> the kept ones, each with its
 * index and box { x0, x1, y0, y1 }, in the order of cands. A kept box lies
 * within [lo, hi] across, is at least 2 px from every other kept box, and
 * touches no other candidate's mark (marks: the box of each candidate's
 * bar, parallel to cands).
 */
export function placeLabels(cands, { lo = -Infinity, hi = Infinity, marks = [] } = {}) {
  const kept = [];
  // by priority, ties in order (sort is stable)
  for (const i of cands.map((_, j) => j).sort((a, b) => cands[b].priority - cands[a].priority)) {
    const c = cands[i], w = numberWidth(c.text, c.size);
    const box = { x0: c.x - w / 2, x1: c.x + w / 2, y0: c.y - ASCENT * c.size, y1: c.y + DESCENT * c.size };
    if (box.x0 >= lo && box.x1 <= hi && !kept.some((k) => touch(box, k.box, 2)) && !marks.some((m, j) => j !== i && touch(box, m, 0))) {
      kept.push({ ...c, index: i, box });
    }
  }
  return kept.sort((a, b) => a.index - b.index);
}
