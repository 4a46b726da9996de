// A widget's results file (results="run.json": what `softscope train --json`
// writes, { softscope, view, state, data }): fetched (a relative URL
// resolves against the page), read as JSON, checked (the view's id, its data
// against the view's declared data shape: views/<view>/data-shape.js, every
// list and text bounded) and handed to the View to draw without computing.
// Whatever is wrong becomes a notice under the key `results`, never an
// exception: the widget then draws as without a file. Loaded by the element
// only when a widget has the attribute.
import { assign } from './assign.js';
import { defaults, entries } from 'softscope/state';
import { check, bounded } from 'softscope/views/shape';

// A results file is a few hundred kB (curves of 400 points, maps of 64 × 64); a larger one is refused unread.
const MAX_BYTES = 16 << 20;

const notice = (url, reason) => ({ notices: [{ key: 'results', value: url, reason }] });

/**
 * { entries, state, data, notices } of a results file for the loaded view v:
 * entries (the file's state as a link's [key, value] pairs, for the widget's
 * other attributes to go on top of), state (the file's state), data; or
 * { notices } alone when it cannot be drawn.
 */
export async function loadResults(ss, v, url) {
  try {
    return await read(ss, v, url);
  } catch (e) {
    return notice(url, String(e?.message ?? e)); // (never a rejection: the widget draws as without a file)
  }
}

async function read(ss, v, url) {
  // (a view draws a results file when it declares all of its data's shape, every list and text bounded)
  const shape = v.dataShape ? await v.dataShape() : null;
  if (!shape || !bounded(shape)) return notice(url, `view ${v.id} draws from its state, not from a results file`);
  let file;
  try {
    const res = await fetch(new URL(url, document.baseURI));
    if (!res.ok) return notice(url, `could not be fetched: HTTP ${res.status}`);
    if (Number(res.headers.get('content-length')) > MAX_BYTES) return notice(url, `larger than ${MAX_BYTES >> 20} MB`);
    const text = await res.text();
    if (text.length > MAX_BYTES) return notice(url, `larger than ${MAX_BYTES >> 20} MB`);
    file = JSON.parse(text);
  } catch (e) {
    return notice(url, e instanceof SyntaxError ? 'not JSON' : `could not be fetched: ${e?.message ?? e}`);
  }
  if (file === null || typeof file !== 'object' || Array.isArray(file)) return notice(url, 'not a results file (a JSON object)');
  if (file.view !== v.id) return notice(url, `a results file of view ${String(file.view).slice(0, 40)}, not ${v.id}`);
  if (file.data === undefined) return notice(url, 'no data');
  try {
    check(shape, file.data, ss);
  } catch (e) {
    return notice(url, `not a results file of this version: ${e.message}`);
  }
  // the file's state, read as a .state assignment reads an object (its own notices name the file's keys)
  const read = assign(v.schema, defaults(v.schema, ss), file.state ?? {}, ss);
  return {
    entries: entries(v.schema, read.state, ss),
    state: read.state,
    data: file.data,
    notices: read.notices.map((n) => ({ ...n, reason: `${n.reason} (in ${String(url).slice(0, 40)})` })),
  };
}
