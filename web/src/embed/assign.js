// A widget's .state = { ... }: the keys of an object merged into the current
// state through the one state parser (softscope/state), so an object and a
// link are read alike. Loaded by the element on the first assignment.
import { parse, entries } from 'softscope/state';
import { OWN_ATTRIBUTES, hashOf } from './Widget.jsx';

// A value of a state object as link text: lists joined by commas, booleans
// 1/0; a params field's object is its keys (alpha: 1.5 -> alpha=1.5).
function textEntries(schema, key, value) {
  const f = schema.fields.find((x) => x.key === key);
  if (f?.type === 'params' && value && typeof value === 'object' && !Array.isArray(value))
    return Object.entries(value).map(([k, v]) => [k, String(v)]);
  const text = (v) => (Array.isArray(v) ? v.map(text).join(',') : typeof v === 'boolean' ? (v ? '1' : '0') : String(v));
  return [[key, text(value)]];
}

/**
 * A state with some keys changed, from an object (a widget's .state = {...}):
 * { state, notices }. Keys are the state's (kernels: ['softmax'], params:
 * { alpha: 1.5 }) or a link's (alpha: 1.5, 'adam.lr': 0.02); null or
 * undefined returns a key to its default. A key that is unknown or a value
 * the link would refuse keeps its current value and is reported in
 * `notices`, as parse() reports a link's (and a patch that is not an
 * object, under the key state).
 */
export function assign(schema, state, patch, ctx) {
  if (!patch || typeof patch !== 'object' || Array.isArray(patch))
    return { state, notices: [{ key: 'state', value: String(patch), reason: 'not an object of keys or a link' }] };
  const given = Object.entries(patch);
  const cleared = new Set(given.filter(([, v]) => v == null).map(([k]) => k));
  const add = given.filter(([, v]) => v != null).flatMap(([k, v]) => textEntries(schema, k, v));
  const changed = new Set([...cleared, ...add.map(([k]) => k)]);
  const current = entries(schema, state, ctx);
  const first = parse(schema, [...current.filter(([k]) => !changed.has(k)), ...add], ctx);
  // (a current key the change makes moot, e.g. alpha without a kernel that has it, goes silently, as in a link)
  const notices = first.notices.filter((n) => changed.has(n.key));
  if (!notices.length) return { state: first.state, notices };
  const bad = new Set(notices.map((n) => n.key));
  const kept = current.filter(([k]) => !changed.has(k) || bad.has(k));
  return { state: parse(schema, [...kept, ...add.filter(([k]) => !bad.has(k))], ctx).state, notices };
}


/** The element's pending assignment (el._pending) applied: the state written
 *  to its attributes (a link in `state`, the view's other keys removed); what
 *  could not be used listed (el._assigned) and announced (softscope-notice). */
export function applyPending(el) {
  const v = el._view, patch = el._pending;
  if (patch === undefined) return; // (applied by a call before this one)
  el._pending = undefined;
  const { state, notices } = assign(v.schema, el._state, patch, el._ss);
  el._assigned = notices;
  el._state = state;
  el.setAttribute('state', hashOf(el._ss, v, state));
  for (const { name } of [...el.attributes]) if (!OWN_ATTRIBUTES.includes(name) && !name.startsWith('data-')) el.removeAttribute(name);
  if (notices.length) el._notify(v, notices);
}
