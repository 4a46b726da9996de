// softscope train: the Experiments view's training run (analysis/experiments.js
// through the view's model) from the command line — a tiny attention model
// per normalizer trained on a seeded task, tested at lengths past the
// training length. The state is the view's (a playground link with --state,
// and/or one flag per key: --task, --normalizers, --train-max, ...; a flag
// overrides the link); --json prints the results file a widget draws
// without training (<softscope-widget view="experiments" results="x.json">),
// --csv the view's table, else a text table.
import { UsageError, toJson, num, table, own } from './shared.js';
import { experiments } from '../views/experiments/index.js';
import { parse, entries, stateEntries } from '../state/schema.js';
import { csv } from '../views/data.js';
import { outline } from '../views/shape.js';
import { dataShape } from '../views/experiments/data-shape.js';
import REGISTRY from '../dist/registry.js';
import { runLanguage, languageHelp, LANGUAGE_FLAGS } from './train-language.js';

const { schema } = experiments;
const FIELDS = schema.fields.filter((f) => f.type !== 'params');
/** A state key's flag: trainMax -> --train-max. */
export const flagOf = (key) => `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
const KEY_OF = Object.fromEntries(FIELDS.map((f) => [flagOf(f.key).slice(2), f.key]));

function keyHelp(f) {
  const range = f.type === 'number' ? ` (${f.min}..${f.max}${f.pow2 ? ', a power of 2' : ''})`
    : f.type === 'bool' ? ' (1 or 0)' : f.type === 'names' ? ` (comma-separated${f.max ? `, at most ${f.max}` : ''})` : '';
  return `  ${flagOf(f.key).padEnd(16)} ${f.label}${range}`;
}

export const command = {
  name: 'train',
  summary: 'train a tiny attention model per normalizer and test it at longer lengths (the Experiments view)',
  usage: 'softscope train [language] [--state LINK] [--task T --normalizers a,b ... --param k.name=value] [--text FILE --save FILE] [--json|--csv] [--impl I]',
  // the Experiments view's flags and the Language view's (train language; its decoding stages by name: '*')
  options: { ...Object.fromEntries([...Object.keys(KEY_OF), ...Object.keys(LANGUAGE_FLAGS)].map((k) => [k, 'value'])), state: 'value', param: 'list',
    json: 'flag', csv: 'flag', impl: 'value', text: 'value', save: 'value', '*': 'value' },
  help: (ss) => `The state is the Experiments view's: --state takes a playground link or key=value pairs
('task=kv_retrieval normalizers=softmax,ssmax steps=2000'); each key also has its flag (it overrides the link):
${FIELDS.map(keyHelp).join('\n')}
  --param k.name=value a parameter of the optimizer (adam.lr=0.003) or of a normalizer (ssmax.s=0.5)
${ss ? `tasks: ${ss.enums.task.join(', ')}; positions: ${ss.enums.positions.join(', ')}; schedules: ${ss.schedules.join(', ')}\n` : ''}
--json  the results file: {"softscope": version, "view": "experiments", "state": {non-default keys}, "data"}
        (<softscope-widget view="experiments" results="file.json"> draws it without training); data (numbers
        null where not one; a list's most items; types: ExperimentsData of softscope/views/experiments):
${outline(dataShape, { indent: '        ' })}
--csv   one row per curve point, test length and quantisation (kind: curve | test | quant)
Bad input (an unknown name, a value out of range) exits 2 naming the flag.

${languageHelp(ss)}`,
  positional: [0, 1],
  async run(ctx, { pos, opt }) {
    if (pos[0] === 'language') return runLanguage(ctx, opt);
    if (pos[0] !== undefined && pos[0] !== experiments.id) throw new UsageError(`train: unknown view "${pos[0]}" (experiments, the default, or language)`);
    // the Experiments view takes its own flags only
    const foreign = [...Object.keys(LANGUAGE_FLAGS).filter((f) => !own(KEY_OF, f)), 'text', 'save'].find((f) => opt[f] !== undefined) ?? opt['*']?.[0]?.[0];
    if (foreign !== undefined) throw new UsageError(`unknown option --${foreign} for train (see softscope train --help; train language takes it)`);
    if (opt.json && opt.csv) throw new UsageError('--json and --csv: choose one');
    const ss = await ctx.load(opt.impl);
    const given = stateEntries(opt.state ?? '').filter(([k]) => k !== 'view');
    const other = stateEntries(opt.state ?? '').find(([k, v]) => k === 'view' && v !== experiments.id);
    if (other) throw new UsageError(`--state: the link is of view ${other[1]}, not ${experiments.id}`);
    const flags = new Map();
    for (const [flag, key] of Object.entries(KEY_OF)) if (opt[flag] !== undefined) flags.set(key, opt[flag]);
    for (const kv of opt.param) {
      const eq = kv.indexOf('=');
      if (eq <= 0 || !kv.slice(0, eq).includes('.')) throw new UsageError(`--param ${kv}: expected kernel.name=value (adam.lr=0.003)`);
      flags.set(kv.slice(0, eq), kv.slice(eq + 1));
    }
    const list = [...given.filter(([k]) => !flags.has(k)), ...flags];
    const { state, notices } = parse(schema, list, ss);
    if (notices.length) {
      const n = notices[0];
      const value = String(n.value).slice(0, 40);
      const text = !flags.has(n.key) ? `--state: ${n.key}=${value}` : own(KEY_OF, flagOf(n.key).slice(2)) ? `${flagOf(n.key)} ${value}` : `--param ${n.key}=${value}`;
      throw new UsageError(`${text}: ${n.reason}${notices.length > 1 ? ` (and ${notices.length - 1} more)` : ''}`);
    }
    const data = experiments.compute(ss, state);
    if (opt.json) {
      ctx.out(toJson({ softscope: REGISTRY.version, view: experiments.id, state: Object.fromEntries(entries(schema, state, ss)), data }));
      return;
    }
    if (opt.csv) { ctx.out(csv(experiments, data).trimEnd()); return; }
    ctx.out(textReport(data));
  },
};

function textReport(d) {
  const pct = (v) => (v === null || v === undefined ? '–' : num(100 * v, 4));
  const val = (v) => (v === null || v === undefined ? '–' : num(v, 4)); // null: no value (a signed normalizer's measures)
  const lines = [`${d.task}: ${d.classes} classes (chance ${pct(d.chance)} %), trained ${d.steps} steps at n = ${d.trainN[0]}..${d.trainN[1]}`];
  for (const r of d.runs) {
    const head = `${r.name}: ${r.error ? `stopped: ${r.error}` : r.diverged !== null ? `diverged at step ${r.diverged}`
      : `95 % training accuracy ${r.reached === null ? 'not reached' : `at step ${r.reached}`}`}`;
    const ps = Object.entries(r.normParams).map(([k, v]) => `${k}=${num(v, 4)}`).join(', ');
    lines.push('', `${head}${ps ? ` (${ps})` : ''}`);
    if (r.lengths.length)
      lines.push(table(r.lengths.map((x) => [String(x.n), pct(x.accuracy), val(x.loss), val(x.entropy), val(x.maxWeight), val(x.support)]),
        ['n', 'accuracy %', 'loss', 'entropy', 'max weight', 'support']));
  }
  return lines.join('\n');
}
