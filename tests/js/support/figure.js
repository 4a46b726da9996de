// Reading a figure's SVG in tests: the elements (support/xml.js, which also
// checks the SVG is well-formed), the subtree of a group, and the values
// marks carry (data-value), so a test compares what is drawn with the model.
import { parseXml } from './xml.js';

/** The SVG's elements in document order: { name, attrs, depth, text }. */
export const svgElements = (svg) => parseXml(svg);

/** The elements inside the first element whose attribute `attr` is `value` (itself first). */
export function inside(els, attr, value) {
  const i = els.findIndex((e) => e.attrs[attr] === (value === undefined ? e.attrs[attr] : String(value)) && attr in e.attrs);
  if (i < 0) return [];
  const out = [els[i]];
  for (let j = i + 1; j < els.length && els[j].depth > els[i].depth; j++) out.push(els[j]);
  return out;
}

/** data-value of the elements that have it (and pass `where`), as strings. */
export const dataValues = (els, where = () => true) => els.filter((e) => 'data-value' in e.attrs && where(e)).map((e) => e.attrs['data-value']);

/** The one element with attr = value (an Error if there is none). */
export function one(els, attr, value) {
  const e = els.find((x) => x.attrs[attr] === String(value));
  if (!e) throw new Error(`no element with ${attr}="${value}"`);
  return e;
}
