// A widget's .state = { ... }: the keys of an object merged into the current
// state through the one state parser (softscope/state), so an object and a
// link are read alike. Loaded by the element on the first assignment.
import { parse, entries, textOf, LINK_LIMITS } from 'softscope/state';
import { OWN_ATTRIBUTES, hashOf } from './attributes.js';

const typeName = (v) => (Array.isArray(v) ? 'a list' : v === null ? 'null' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);
const isNumber = (v) => typeof v === 'number';
const isText = (v) => typeof v === 'string';

// The value types a key of each field type takes in .state (text is a link's
// value, read as the link reads it), and what else a link's key (alpha: 1.5,
// 'adam.lr': 0.02) takes; anything else is reported by its type.
const TAKES = {
  number: { ok: (v) => isNumber(v) || isText(v), what: 'a number' },
  bool: { ok: (v) => typeof v === 'boolean' || v === 0 || v === 1 || isText(v), what: 'true or false' },
  choice: { ok: isText, what: 'a name' },
  names: { ok: (v) => isText(v) || (Array.isArray(v) && v.every(isText)), what: 'a list of names' },
  numbers: { ok: (v) => isText(v) || (Array.isArray(v) && v.every(isNumber)), what: 'a list of numbers' },
  point: { ok: (v) => isText(v) || (Array.isArray(v) && v.every(isNumber)), what: 'two numbers [x, y]' },
  params: { ok: (v) => v !== null && typeof v === 'object' && !Array.isArray(v), what: 'an object of parameters' },
  text: { ok: isText, what: 'a text' },
  key: { ok: (v) => isNumber(v) || isText(v) || typeof v === 'boolean', what: 'a number' },
};

// A value of a state object as link text: [[key, text]] and notices for
// values of a type the key does not take: lists joined by commas, booleans
// 1/0; a params field's object is its keys (alpha: 1.5 -> alpha=1.5).
function textEntries(schema, key, value) {
  const f = schema.fields.find((x) => x.key === key);
  const takes = TAKES[f?.type ?? 'key'];
  if (!takes.ok(value)) return { add: [], bad: [{ key, value: textOf(value), reason: `${typeName(value)}, not ${takes.what}` }] };
  if (f?.type === 'params') {
    const kv = Object.entries(value);
    const bad = kv.filter(([, v]) => !TAKES.key.ok(v)).map(([k, v]) => ({ key: k, value: textOf(v), reason: `${typeName(v)}, not a number` }));
    return { add: kv.filter(([, v]) => TAKES.key.ok(v)).map(([k, v]) => [k, String(v)]), bad };
  }
  const text = (v) => (Array.isArray(v) ? v.map(text).join(',') : typeof v === 'boolean' ? (v ? '1' : '0') : String(v));
  return { add: [[key, text(value)]], bad: [] };
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
    return { state, notices: [{ key: 'state', value: textOf(patch), reason: 'not an object of keys or a link' }] };
  const given = Object.entries(patch);
  if (given.length > LINK_LIMITS.keys)
    return { state, notices: [{ key: 'state', value: `${given.length} keys`, reason: `an assignment holds at most ${LINK_LIMITS.keys} keys: not applied` }] };
  const cleared = new Set(given.filter(([, v]) => v == null).map(([k]) => k));
  const typed = given.filter(([, v]) => v != null).map(([k, v]) => textEntries(schema, k, v));
  const add = typed.flatMap((t) => t.add);
  const typeNotices = typed.flatMap((t) => t.bad);
  const changed = new Set([...cleared, ...add.map(([k]) => k)]);
  const current = entries(schema, state, ctx);
  const first = parse(schema, [...current.filter(([k]) => !changed.has(k)), ...add], ctx);
  // (a current key the change makes moot, e.g. alpha without a kernel that has it, goes silently, as in a link)
  const notices = [...typeNotices, ...first.notices.filter((n) => changed.has(n.key) || n.key === 'link')];
  if (notices.length === typeNotices.length) return { state: first.state, notices };
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
