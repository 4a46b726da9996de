// softscope train language: the Language view's runs (views/language) from the
// command line — a tiny GPT per normalizer trained on the grammar text,
// Bigram-Backcopy or --text FILE, then validated, inspected for sinks,
// generating through the decoding stages and quantized. The state is the
// view's (--state, and one flag per key: --corpus, --normalizers, --context,
// --gen-seed, ...; a decoding stage by its name turns it on with that value:
// --temperature 0.8 --top_p 0.9); --json prints the results file a widget
// draws without training, --csv the view's table, else a text table;
// --save FILE writes the selected run's model (`sel`, default the first
// normalizer) for `softscope generate --load FILE`.
import { readFile } from 'node:fs/promises';
import { UsageError, toJson, num, table, own } from './shared.js';
import { language } from '../views/language/index.js';
import { parse, entries, stateEntries } from '../state/schema.js';
import { csv } from '../views/data.js';
import { outline } from '../views/shape.js';
import { dataShape } from '../views/language/data-shape.js';
import { finish } from '../views/stepper.js';
import { decodeStages } from '../analysis/decoding.js';
import { LANGUAGE_LIMITS } from '../analysis/language.js';
import REGISTRY from '../dist/registry.js';

const { schema } = language;
/** A state key's flag: genSeed -> --gen-seed. */
const flagOf = (key) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
const FIELDS = schema.fields.filter((f) => f.type !== 'params');
export const LANGUAGE_FLAGS = Object.fromEntries(FIELDS.map((f) => [flagOf(f.key).slice(2), f.key]));

function keyHelp(f) {
  const range = f.type === 'number' ? ` (${f.min}..${f.max})` : f.type === 'bool' ? ' (1 or 0)'
    : f.type === 'names' ? ` (comma-separated${f.max ? `, at most ${f.max}` : ''})` : f.type === 'text' ? ` (text, at most ${f.maxLength} characters)` : '';
  return `  ${flagOf(f.key).padEnd(16)} ${f.label}${range}`;
}

export const languageHelp = (ss) => `softscope train language: the Language view (a tiny GPT per normalizer, on the same batches). Its keys:
${FIELDS.map(keyHelp).join('\n')}
  --param k.name=value a parameter of the optimizer (adamw.lr=0.001) or of a normalizer (ssmax.s=0.5)
  --<stage> value      a decoding stage${ss ? ` (${decodeStages(ss).map((k) => k.name).join(', ')})` : ''} on, with that value (--top_p 0.9)
  --text FILE          the corpus of --corpus text: a UTF-8 file of at most ${LANGUAGE_LIMITS.textChars} characters
  --save FILE          the selected run's model (--sel, default the first normalizer) for softscope generate --load FILE
--json  the results file: {"softscope", "view": "language", "state", "data"} (<softscope-widget view="language"
        results="file.json"> draws it without training); data (numbers null where not one; a list's most items;
        types: LanguageData of softscope/views/language):
${outline(dataShape, { indent: '        ' })}
--csv   one row per curve point, validation point, position, quantisation and head (kind)`;

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** A text file for --text: UTF-8, not empty, at most LANGUAGE_LIMITS.textChars characters (UsageErrors name the flag). */
export async function readTextFile(file, flag = '--text') {
  let bytes;
  try {
    bytes = await readFile(file);
  } catch (e) {
    throw new UsageError(`${flag} ${file}: cannot read it (${e.code ?? e.message})`);
  }
  if (bytes.length === 0) throw new UsageError(`${flag} ${file}: the file is empty`);
  if (bytes.length > 4 * LANGUAGE_LIMITS.textChars) throw new UsageError(`${flag} ${file}: ${bytes.length} bytes, more than a text of ${LANGUAGE_LIMITS.textChars} characters can be`);
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new UsageError(`${flag} ${file}: not UTF-8 text`);
  }
  if (text.length > LANGUAGE_LIMITS.textChars) throw new UsageError(`${flag} ${file}: ${text.length} characters, more than ${LANGUAGE_LIMITS.textChars}`);
  if (CONTROL.test(text)) throw new UsageError(`${flag} ${file}: holds a control character (not a text file)`);
  return text;
}

/** The language run of `softscope train language` (opt: the parsed flags of train). */
export async function runLanguage(ctx, opt) {
  if (opt.json && opt.csv) throw new UsageError('--json and --csv: choose one');
  const ss = await ctx.load(opt.impl);
  const given = stateEntries(opt.state ?? '').filter(([k]) => k !== 'view');
  const other = stateEntries(opt.state ?? '').find(([k, v]) => k === 'view' && v !== language.id);
  if (other) throw new UsageError(`--state: the link is of view ${other[1]}, not ${language.id}`);
  const flags = new Map();
  for (const [flag, key] of Object.entries(LANGUAGE_FLAGS)) if (opt[flag] !== undefined) flags.set(key, opt[flag]);
  for (const kv of opt.param) {
    const eq = kv.indexOf('=');
    if (eq <= 0 || !kv.slice(0, eq).includes('.')) throw new UsageError(`--param ${kv}: expected kernel.name=value (adamw.lr=0.001)`);
    flags.set(kv.slice(0, eq), kv.slice(eq + 1));
  }
  const stageNames = decodeStages(ss).map((k) => k.name);
  const stageFlags = new Map();
  for (const [name, value] of opt['*'] ?? []) {
    if (!stageNames.includes(name)) throw new UsageError(`unknown option --${name} for train language (see softscope train --help)`);
    flags.set(name, value);
    stageFlags.set(name, value);
  }
  if (stageFlags.size && !flags.has('on')) {
    // a stage by its flag is on (with the others the link or --on turns on)
    const base = given.find(([k]) => k === 'on')?.[1];
    const on = new Set([...(base ? base.split(',') : []), ...stageFlags.keys()]);
    flags.set('on', [...on].join(','));
  }
  const list = [...given.filter(([k]) => !flags.has(k)), ...flags];
  const { state, notices } = parse(schema, list, ss);
  if (notices.length) {
    const n = notices[0];
    const value = String(n.value).slice(0, 40);
    const text = !flags.has(n.key) ? `--state: ${n.key}=${value}` : own(LANGUAGE_FLAGS, flagOf(n.key).slice(2)) ? `${flagOf(n.key)} ${value}`
      : stageFlags.has(n.key) ? `--${n.key} ${value}` : `--param ${n.key}=${value}`;
    throw new UsageError(`${text}: ${n.reason}${notices.length > 1 ? ` (and ${notices.length - 1} more)` : ''}`);
  }
  if (state.corpus === 'text' && opt.text === undefined) throw new UsageError('--corpus text needs --text FILE');
  if (state.corpus !== 'text' && opt.text !== undefined) throw new UsageError(`--text: only read with --corpus text (the corpus is ${state.corpus})`);
  const text = opt.text !== undefined ? await readTextFile(opt.text) : undefined;
  let stepper;
  try {
    stepper = language.start(ss, state, { text });
  } catch (e) {
    if (e?.argument === 'options.text') throw new UsageError(`--text ${opt.text}: ${String(e.message).replace(/^[^:]*: /, '')}`);
    throw e;
  }
  let data, model = null;
  try {
    while (stepper.step(Infinity));
    data = stepper.data();
    if (opt.save !== undefined) {
      const r = data.runs[data.sel];
      if (r.diverged !== null || r.error !== null)
        throw new UsageError(`--save ${opt.save}: the run of ${r.name} ${r.error ? `stopped (${r.error})` : `diverged at step ${r.diverged}`}; nothing saved`);
      model = stepper.save();
    }
  } finally {
    stepper.stop();
  }
  if (model) await ctx.write(opt.save, model, '--save');
  if (opt.json) {
    ctx.out(toJson({ softscope: REGISTRY.version, view: language.id, state: Object.fromEntries(entries(schema, state, ss)), data }));
    return;
  }
  if (opt.csv) { ctx.out(csv(language, data).trimEnd()); return; }
  ctx.out(textReport(data));
}

function textReport(d) {
  const v = (x, digits = 4) => (x === null || x === undefined ? '–' : num(x, digits));
  const lines = [`${d.corpus}: ${d.vocab} tokens (BOS included), context ${d.context}, ${d.steps} steps of ${d.batch} windows; unigram entropy ${v(d.unigram)} nats, ln V ${v(d.uniform)}`];
  lines.push(table(d.runs.map((r) => [r.name, r.error ? 'stopped' : r.diverged !== null ? `diverged at ${r.diverged}` : String(r.step),
    v(r.curve.loss[r.curve.loss.length - 1]), v(r.valLoss), v(r.valBits), r.tokensPerSecond === null ? '–' : String(Math.round(r.tokensPerSecond)),
    r.inspect ? String(r.inspect.sinks) : '–']), ['normalizer', 'steps', 'train loss', 'val loss', 'val bits', 'tokens/s', 'sink heads']));
  for (const r of d.runs) {
    if (r.error) lines.push(`${r.name}: stopped: ${r.error}`);
    const g = r.generation;
    if (g) lines.push(`${r.name}: ${g.error ? `generation: ${g.error}` : JSON.stringify(g.prompt + g.text.slice(0, 160))}`);
  }
  return lines.join('\n');
}
