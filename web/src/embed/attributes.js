// The element's attributes and its state: which attributes are the
// element's own (not state keys), the state they give, and the state as a
// link. A module of its own (no Preact) so that the element (embed.js), the
// Widget, .state assignments (assign.js) and results files (results.js)
// share it without importing one another.
import { parse, hashEntries, toHash } from 'softscope/state';

/** Attributes of the element that are not state keys. */
export const OWN_ATTRIBUTES = ['view', 'state', 'results', 'model', 'controls', 'height', 'theme', 'class', 'style', 'id', 'title', 'lang', 'dir', 'hidden', 'tabindex', 'slot', 'part'];

/** The view's state from the element's attributes: { state, notices } (v: the loaded view; base: [key, value]
 *  pairs under them, a results file's state). */
export function stateFromAttributes(ss, attrs, v, base = []) {
  const fromLink = attrs.state ? hashEntries(attrs.state.replace(/^[^#]*#/, '')) : [];
  const other = fromLink.find(([k, val]) => k === 'view' && val !== v.id);
  const own = Object.entries(attrs).filter(([k]) => !OWN_ATTRIBUTES.includes(k) && !k.startsWith('data-') && !k.startsWith('aria-'));
  const given = new Set([...fromLink, ...own].map(([k]) => k));
  const under = base.filter(([k]) => !given.has(k));
  const { state, notices } = parse(v.schema, [...under, ...fromLink.filter(([k]) => k !== 'view'), ...own], ss);
  if (other) notices.unshift({ key: 'state', value: attrs.state, reason: `a link of view ${other[1]}, not ${v.id}` });
  return { state, notices };
}

/** The link hash of a widget's current state. */
export const hashOf = (ss, v, state) => toHash(v.schema, state, ss);
