// What every CLI command shares: argument parsing against the command's own
// option list, reading vectors (JSON, "1 2 3", @file, stdin), kernel
// parameters from --param name=value, and the output forms (JSON with
// non-finite numbers as strings, aligned tables, numbers as float32 reads
// them). A command is a module exporting { name, summary, usage, help,
// options, run(ctx, args) }; main.js dispatches.
import { readFile } from 'node:fs/promises';
import { overflowsFloat32 } from '../api/args.js';

/** A usage or input error: exit status 2 with one line. */
export class UsageError extends Error {}

/** A result the kernel returned with SS_OK that is not finite where it must
 *  be: a softscope defect, reported with exit status 1 instead of printed. */
export class DefectError extends Error {}

/** Throws a DefectError naming the first NaN of `values`, or an infinity
 *  the kernel's output kind does not allow (masked entries of
 *  log-probabilities are -Infinity; a divergence may be +Infinity). */
export function requireFinite(name, values, { negInf = false, posInf = false } = {}) {
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (Number.isFinite(v) || (v === -Infinity && negInf) || (v === Infinity && posInf)) continue;
    throw new DefectError(`${name}[${i}] = ${v}: the kernel returned a non-finite value with SS_OK (a softscope defect; nothing printed)`);
  }
}

/** Throws a DefectError at the first NaN anywhere in a result object. */
export function requireNoNaN(name, v) {
  if (typeof v === 'number') {
    if (Number.isNaN(v)) throw new DefectError(`${name} is NaN: a non-finite result (a softscope defect; nothing printed)`);
  } else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) requireNoNaN(Array.isArray(v) || ArrayBuffer.isView(v) ? `${name}[${k}]` : `${name}.${k}`, x);
  }
}

/** Whether `key` is an own property of `obj` (never one it inherits:
 *  constructor, __proto__, hasOwnProperty, ...). Every lookup of a name the
 *  user wrote goes through this or a Map. */
export const own = (obj, key) => Object.prototype.hasOwnProperty.call(obj, key);

// C0 controls, DEL, C1 controls, and the Unicode line/paragraph separators and
// bidirectional overrides (they reorder what a terminal shows).
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Text for a terminal: every control character shown escaped (ESC as \x1b,
 *  a newline as \x0a, U+202E as \u202e), so what the user typed is quoted,
 *  never executed by the terminal, and a message stays one line. Every
 *  message the CLI writes to stderr passes through this (main.js). */
export function escapeControls(text) {
  return String(text).replace(CONTROL_RE, (c) => {
    const u = c.charCodeAt(0);
    return u < 0x100 ? `\\x${u.toString(16).padStart(2, '0')}` : `\\u${u.toString(16)}`;
  });
}

/**
 * Parses argv against a command's options ({ name: 'flag' | 'value' | 'list' }):
 * { pos: [positionals], opt: { name: value | true | [values] } } (opt has no
 * prototype). Unknown options, inherited names such as --constructor or
 * --__proto__ included, are usage errors naming the command.
 */
export function parseArgs(argv, options, command) {
  const pos = [], opt = Object.create(null);
  for (const [k, kind] of Object.entries(options)) if (kind === 'list') opt[k] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-h') { opt.help = true; continue; }
    if (!a.startsWith('--') || a === '--' || a === '-') { pos.push(a); continue; }
    const eq = a.indexOf('=');
    const name = a.slice(2, eq < 0 ? undefined : eq);
    let kind = name === 'help' ? 'flag' : own(options, name) ? options[name] : undefined;
    // a command that takes flags named at run time (the decoding stages of the registry: --top_p 0.9) lists them as
    // '*': its run() checks each name of opt['*'] ([name, value] pairs)
    if (!kind && own(options, '*') && /^[a-z][a-z0-9_]*$/.test(name)) {
      if (!opt['*']) opt['*'] = [];
      let v;
      if (eq >= 0) v = a.slice(eq + 1);
      else {
        if (i + 1 >= argv.length) throw new UsageError(`--${name} needs a value`);
        v = argv[++i];
      }
      if (opt['*'].some(([n]) => n === name)) throw new UsageError(`--${name} given twice`);
      opt['*'].push([name, v]);
      continue;
    }
    if (!kind) throw new UsageError(`unknown option --${name} for ${command} (see softscope ${command} --help)`);
    if (kind === 'flag') {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      opt[name] = true;
      continue;
    }
    let v;
    if (eq >= 0) v = a.slice(eq + 1);
    else {
      if (i + 1 >= argv.length) throw new UsageError(`--${name} needs a value`);
      v = argv[++i];
    }
    if (kind === 'list') opt[name].push(v);
    else if (opt[name] !== undefined) throw new UsageError(`--${name} given twice`);
    else opt[name] = v;
  }
  return { pos, opt };
}

/** One number from text: JSON numbers, Infinity / -Infinity / NaN spelled out, 2^k. */
export function parseNumberToken(t, what, i = 0) {
  const s = String(t).trim().replace(/^"|"$/g, '');
  const low = s.toLowerCase();
  if (low === 'infinity' || low === '+infinity' || low === 'inf' || low === '+inf') return Infinity;
  if (low === '-infinity' || low === '-inf') return -Infinity;
  if (low === 'nan') return NaN;
  const p = /^2\s*\^\s*(\d+)$/.exec(s);
  if (p) return 2 ** Number(p[1]);
  const v = s === '' ? NaN : Number(s);
  if (Number.isNaN(v)) throw new UsageError(`${what}: item ${i} (${JSON.stringify(s.slice(0, 30))}) is not a number`);
  return v;
}


// A vector from text: a JSON array, a softscope --json result (its "output"),
// or numbers separated by spaces or commas, in brackets or not (which also
// covers -Infinity, which JSON cannot write). Only flat arrays of numbers; a
// finite value beyond float32's range is an error naming its index (it is
// not a mask). Text that is neither (an object or a bracket left open, as in
// '[1,2') is malformed JSON: an error, not the numbers it happens to hold.
export function parseVector(text, what) {
  let j;
  try {
    j = JSON.parse(text);
  } catch (e) {
    if (e instanceof RangeError) throw new UsageError(`${what}: the JSON is nested too deeply`);
    const t = String(text).trim();
    if (/^\{|\}$/.test(t)) throw new UsageError(`${what}: malformed JSON (${e.message})`);
    if (t.startsWith('[') !== t.endsWith(']'))
      throw new UsageError(`${what}: malformed JSON: ${t.startsWith('[') ? 'the "[" is not closed' : 'a "]" closes no "["'}`);
    j = undefined;
  }
  if (j && typeof j === 'object' && !Array.isArray(j) && Array.isArray(j.output)) j = j.output;
  let xs;
  if (Array.isArray(j)) {
    xs = new Float64Array(j.length);
    for (let i = 0; i < j.length; i++) {
      const v = j[i];
      if (typeof v === 'number') xs[i] = v;
      else if (typeof v === 'string') xs[i] = parseNumberToken(v, what, i);
      else throw new UsageError(`${what}: item ${i} is ${Array.isArray(v) ? 'an array' : v === null ? 'null' : `a ${typeof v}`}, not a number (a flat array of numbers is expected)`);
    }
  } else if (j !== undefined && typeof j !== 'number') {
    throw new UsageError(`${what}: expected an array of numbers (got ${j === null ? 'null' : typeof j})`);
  } else {
    const body = String(text).trim().replace(/^\[/, '').replace(/\]$/, '').trim();
    const parts = body === '' ? [] : body.split(/[\s,]+/);
    xs = Float64Array.from(parts, (t, i) => parseNumberToken(t, what, i));
  }
  for (let i = 0; i < xs.length; i++)
    if (overflowsFloat32(xs[i]))
      throw new UsageError(`${what}: item ${i} (${xs[i]}) overflows float32 (|x| > 3.4e38); -Infinity, written as such, is a masked entry`);
  return xs;
}

export async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

/** The text of an argument: itself, @file, or - (stdin). */
export async function readText(spec, what) {
  if (spec === '-') return readStdin();
  if (spec.startsWith('@')) {
    try {
      return await readFile(spec.slice(1), 'utf8');
    } catch (e) {
      throw new UsageError(`${what}: cannot read ${spec.slice(1)} (${e.code ?? e.message})`);
    }
  }
  return spec;
}

/** A float32 vector from --input's text (see parseVector). */
export async function readVector(spec, what) {
  return Float32Array.from(parseVector(await readText(spec, what), what));
}

/** The rows of an input: a nested JSON array [[...], [...]] (rows of equal
 *  length) or, with --rows R, a flat vector read as R rows of n. Returns
 *  { x: Float32Array of rows * n, rows, n }, rows null for a plain vector.
 *  A bad shape is a UsageError (exit 2, one line). */
export async function readRows(spec, what, rowsFlag) {
  const text = await readText(spec, what);
  let j;
  try { j = JSON.parse(text); } catch { j = undefined; }
  let rows = null, x;
  if (Array.isArray(j) && j.length > 0 && Array.isArray(j[0])) {
    const parts = j.map((r, ri) => {
      if (!Array.isArray(r)) throw new UsageError(`${what}: row ${ri} is not an array (a nested input is an array of rows of numbers)`);
      const xs = new Float64Array(r.length);
      for (let i = 0; i < r.length; i++) {
        const v = r[i];
        if (typeof v === 'number') xs[i] = v;
        else if (typeof v === 'string') xs[i] = parseNumberToken(v, `${what} row ${ri}`, i);
        else throw new UsageError(`${what}: row ${ri} item ${i} is ${Array.isArray(v) ? 'an array' : v === null ? 'null' : `a ${typeof v}`}, not a number (rows of numbers are expected)`);
        if (overflowsFloat32(xs[i]))
          throw new UsageError(`${what}: row ${ri} item ${i} (${xs[i]}) overflows float32 (|x| > 3.4e38); -Infinity, written as such, is a masked entry`);
      }
      return xs;
    });
    const n = parts[0].length;
    const bad = parts.findIndex((r) => r.length !== n);
    if (bad >= 0) throw new UsageError(`${what}: row ${bad} has ${parts[bad].length} numbers, row 0 has ${n}; the rows must have equal lengths`);
    rows = parts.length;
    x = new Float32Array(rows * n);
    parts.forEach((r, i) => x.set(r, i * n));
  } else {
    x = Float32Array.from(parseVector(text, what));
  }
  if (rowsFlag !== undefined) {
    const r = /^\d+$/.test(rowsFlag) ? Number(rowsFlag) : NaN;
    if (!(r >= 1) || !Number.isSafeInteger(r)) throw new UsageError(`--rows ${rowsFlag}: must be an integer >= 1`);
    if (rows !== null && r !== rows) throw new UsageError(`--rows ${r}: ${what} holds ${rows} rows`);
    if (x.length % r !== 0) throw new UsageError(`--rows ${r}: ${what} has ${x.length} numbers, not a multiple of ${r} (read as rows of n)`);
    rows = r;
  }
  return { x, rows, n: rows ? x.length / rows : x.length };
}

/** { name: value } from --param name=value (names checked by the API; named
 *  choices and true/false kept). The object has no prototype, so every name
 *  (__proto__ and constructor too) is an own key the API sees and checks. */
export function parseParams(list, kernel) {
  const out = Object.create(null);
  for (const kv of list) {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new UsageError(`--param ${kv}: expected name=value`);
    const name = kv.slice(0, eq), raw = kv.slice(eq + 1).trim();
    if (own(out, name)) throw new UsageError(`--param ${name} given twice`);
    const spec = kernel.params.find((p) => p.name === name);
    if (spec?.type === 'bool' && /^(true|false)$/i.test(raw)) out[name] = /^true$/i.test(raw);
    else if (spec?.choices && /^[a-z_]+$/i.test(raw)) out[name] = raw; // a named choice, checked by the API
    else {
      try {
        out[name] = parseNumberToken(raw, `--param ${name}`, 0);
      } catch {
        throw new UsageError(`--param ${name}=${raw}: not a number`);
      }
    }
  }
  return out;
}

// ---- output ------------------------------------------------------------------

/** The shortest decimal that reads back as the same float32 (the views' CSV writes the same). */
export { f32 } from '../views/data.js';

/** JSON with non-finite numbers as the strings "Infinity", "-Infinity", "NaN". */
export function toJson(obj) {
  return JSON.stringify(obj, (k, v) => {
    if (typeof v === 'number' && !Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
    if (ArrayBuffer.isView(v)) return Array.from(v);
    return v;
  });
}

/** A number for a table: integers whole, others to `digits` significant digits. */
export function num(v, digits = 6) {
  if (typeof v !== 'number') return String(v);
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
  if (Number.isInteger(v) && Math.abs(v) < 1e15) return String(v);
  return String(Number(v.toPrecision(digits)));
}

/** Rows as aligned columns (the last column is not padded). */
export function table(rows, header) {
  const all = header ? [header, ...rows] : rows;
  if (!all.length) return '';
  const w = all[0].map((_, c) => Math.max(...all.map((r) => String(r[c] ?? '').length)));
  const line = (r) => r.map((cell, c) => (c === r.length - 1 ? String(cell) : String(cell).padEnd(w[c]))).join('  ').trimEnd();
  return all.map(line).join('\n');
}

/** Rows i, x_i, y_i of two vectors (the first 20 and the last 5 of long ones). */
export function rowsOf(x, y) {
  const n = x.length, show = n <= 40 ? [...Array(n).keys()] : [...Array(20).keys(), -1, ...Array.from({ length: 5 }, (_, i) => n - 5 + i)];
  return show.map((i) => (i < 0 ? ['...', '', ''] : [String(i), num(x[i]), num(y[i])]));
}

/** "a=1, b=2" of a params object, or `none`. */
export function paramList(params, none = '') {
  return Object.entries(params).map(([a, b]) => `${a}=${b}`).join(', ') || none;
}

/**
 * The API's message about an argument ("x", "p", "params.alpha",
 * "options.tau", "options.params.lr"), said with the command-line flag
 * instead (--input, --input2, --param alpha, --tau).
 */
export function cliMessage(e, flags = {}) {
  let m = String(e.message).replace(/^softscope\.\w+(\("[^"]*"\))?( normalizer "[^"]*")?: /, '');
  // a failing row of a rows call ("row 3: x contains NaN ..."): the row stays in front
  const row = /^row \d+: /.exec(m)?.[0] ?? '';
  m = m.slice(row.length);
  const arg = e.argument;
  const param = /^(?:options\.)?(?:params|normalizerParams)\.(.+)$/.exec(arg ?? '');
  const option = /^options\.(\w+)$/.exec(arg ?? '');
  const flag = flags[arg] ?? (arg === 'x' || arg === 'p' ? '--input' : arg === 'q' ? '--input2'
    : param ? `--param ${param[1]}` : option ? `--${option[1].replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}` : null);
  if (flag && m.startsWith(arg)) m = `${flag}${m.slice(arg.length)}`;
  // a dotted name inside the sentence ("unknown parameter params.x; ...")
  else if (flag && arg.includes('.')) m = m.replace(new RegExp(`${arg.replace(/\./g, '\\.')}(?![\\w.])`), flag);
  return row + m;
}
