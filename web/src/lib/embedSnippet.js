// The <softscope-widget> snippet of a view's state (the playground's Embed
// button): the embed script of this site and the element with the state's
// non-default keys as attributes, the same keys as a link, and `controls`
// written out: the controls of the keys the user moved (a widget in a page
// offers what the author was playing with, not every control of the tab).
import { entries } from 'softscope/state';

const escAttr = (v) => String(v).replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

// Keys whose control a View shows only inside another key's block
// (web/src/views/<view>/View.jsx): that block's key goes with them.
const SHOWN_WITH = {
  normalizers: { preset: 'logits', n: 'logits', seed: 'logits' },
  sampling: { n: 'preset', vocab: 'preset', seed: 'preset' },
};

/** The state keys a patch moves away from cur (a params field: the parameter keys whose value changes). */
export function movedKeys(cur, patch) {
  const out = [];
  for (const [k, v] of Object.entries(patch)) {
    if (v && typeof v === 'object' && !Array.isArray(v) && cur[k] && typeof cur[k] === 'object' && !Array.isArray(cur[k])) {
      for (const p of new Set([...Object.keys(cur[k]), ...Object.keys(v)])) if (cur[k][p] !== v[p]) out.push(p);
    } else if (JSON.stringify(cur[k]) !== JSON.stringify(v)) out.push(k);
  }
  return out;
}

/**
 * The `controls` of a widget that offers the moved keys: each key's control
 * name (a kernel parameter `adam.lr` is the control `lr` of the optimizer
 * shown), with the block it sits in; in the schema's order. [] for none.
 */
export function embedControls(v, moved) {
  const names = new Set();
  for (const key of moved) {
    names.add(key.includes('.') ? key.slice(key.indexOf('.') + 1) : key);
    const block = SHOWN_WITH[v.id]?.[key];
    if (block) names.add(block);
  }
  const order = v.schema.fields.map((f) => f.key);
  const rank = (n) => (order.includes(n) ? order.indexOf(n) : order.length);
  return [...names].sort((a, b) => rank(a) - rank(b));
}

/** The widget snippet for a view's state: the script tag and the element with the state's keys and `controls` as attributes. */
export function embedSnippet(v, state, ss, base, controls = []) {
  const script = new URL('embed/embed.js', base).href;
  const attrs = [['view', v.id], ...entries(v.schema, state, ss), ['controls', controls.length ? controls.join(',') : 'none']]
    .map(([k, val]) => `${k}="${escAttr(val)}"`).join(' ');
  return `<script type="module" src="${script}"></script>\n<softscope-widget ${attrs}></softscope-widget>`;
}
