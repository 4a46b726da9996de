// The <softscope-widget> snippet of a view's state (the playground's Embed
// button): the embed script of this site and the element with the state's
// non-default keys as attributes, the same keys as a link.
import { entries } from 'softscope/state';

const escAttr = (v) => String(v).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/** The widget snippet for a view's state: the script tag and the element with the state's keys as attributes. */
export function embedSnippet(v, state, ss, base) {
  const script = new URL('embed/embed.js', base).href;
  const attrs = [['view', v.id], ...entries(v.schema, state, ss)].map(([k, val]) => `${k}="${escAttr(val)}"`).join(' ');
  return `<script type="module" src="${script}"></script>\n<softscope-widget ${attrs}></softscope-widget>`;
}

