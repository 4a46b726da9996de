// softscope generate: text from a saved language model (softscope train
// language --save FILE, or a page's download): --prompt, --length, --seed
// and any decoding stage of the registry by its name (--temperature 0.8
// --top_p 0.9: that stage on with that value, in the registry's order);
// --json gives the text and, per step, the top candidates before and after
// each stage. A missing, truncated or hostile file, a prompt with a character
// the model does not know, a bad flag: exit 2 with one line.
import { readFile } from 'node:fs/promises';
import { UsageError, toJson, parseNumberToken } from './shared.js';
import { loadLanguageModel, LANGUAGE_LIMITS } from '../analysis/language.js';
import { decodeStages } from '../analysis/decoding.js';
import { readTextFile } from './train-language.js';

const message = (e) => String(e?.message ?? e).replace(/^[^:]*: /, '');
const int = (v, flag, lo, hi) => {
  const x = Number(v);
  if (!Number.isInteger(x) || x < lo || x > hi) throw new UsageError(`${flag} ${String(v).slice(0, 40)}: an integer in [${lo}, ${hi}]`);
  return x;
};

export const command = {
  name: 'generate',
  summary: 'generate text from a saved language model through the decoding stages (softscope train language --save)',
  usage: 'softscope generate --load model.ssm [--prompt TEXT] [--length N] [--seed S] [--<stage> value ...] [--top K] [--text FILE] [--json] [--impl I]',
  options: { load: 'value', prompt: 'value', length: 'value', seed: 'value', top: 'value', text: 'value', json: 'flag', impl: 'value', '*': 'value' },
  help: (ss) => `--load FILE     a model file (SSLM: softscope train language --save FILE)
--prompt TEXT    the text to continue (default: none, from BOS); every character must be in the model's vocabulary
--length N       tokens to draw (default 200, at most ${LANGUAGE_LIMITS.generate})
--seed S         the draws' seed (default 0): the same text for the same seed and build
--<stage> value  a decoding stage on with that value${ss ? `: ${decodeStages(ss).map((k) => `--${k.name}`).join(', ')}` : ''} (in the registry's
                 order; none: sampling from softmax of the logits)
--top K          candidates per step in --json (default 5)
--text FILE      the model's corpus (corpus text: not needed to generate)
--json           {"prompt", "text", "steps": [{token, text, kept, top: [{token, text, logit, base, stages, final}]}]}
Bad input (a missing, truncated or hostile file, a prompt with an unknown character, a bad flag) exits 2 with one line.`,
  positional: [0, 0],
  async run(ctx, { opt }) {
    if (opt.load === undefined) throw new UsageError('generate: --load FILE is required (a model of softscope train language --save)');
    const length = opt.length === undefined ? 200 : int(opt.length, '--length', 1, LANGUAGE_LIMITS.generate);
    const seed = opt.seed === undefined ? 0 : int(opt.seed, '--seed', 0, 2 ** 32 - 1);
    const top = opt.top === undefined ? 5 : int(opt.top, '--top', 0, 64);
    const ss = await ctx.load(opt.impl);
    const stages = decodeStages(ss).map((k) => k.name);
    const values = {};
    for (const [name, v] of opt['*'] ?? []) {
      if (!stages.includes(name)) throw new UsageError(`unknown option --${name} for generate (decoding stages: ${stages.join(', ')})`);
      const x = parseNumberToken(v, `--${name}`);
      if (!Number.isFinite(x)) throw new UsageError(`--${name} ${String(v).slice(0, 40)}: a finite number`);
      values[name] = x;
    }
    const text = opt.text !== undefined ? await readTextFile(opt.text) : undefined;
    let bytes;
    try {
      bytes = await readFile(opt.load);
    } catch (e) {
      throw new UsageError(`--load ${opt.load}: cannot read it (${e.code ?? e.message})`);
    }
    if (bytes.length > LANGUAGE_LIMITS.fileBytes) throw new UsageError(`--load ${opt.load}: ${bytes.length} bytes > ${LANGUAGE_LIMITS.fileBytes}`);
    let lm;
    try {
      lm = loadLanguageModel(ss, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), text === undefined ? {} : { text });
    } catch (e) {
      if (e?.name === 'SoftscopeTrapError' || !(typeof e?.code === 'string' && e.code.startsWith('SS_'))) throw e;
      throw new UsageError(`--load ${opt.load}: ${message(e).replace(/^file /, '')}`);
    }
    try {
      let g;
      try {
        g = lm.generate({ prompt: opt.prompt ?? '', length, on: stages.filter((n) => n in values), stages: values, seed, top });
      } catch (e) {
        if (e?.name === 'SoftscopeTrapError' || !(typeof e?.code === 'string' && e.code.startsWith('SS_'))) throw e;
        const arg = /^options\.(prompt|stages)(?:\.(\w+))?/.exec(e.argument ?? '');
        const flag = arg ? (arg[1] === 'prompt' ? '--prompt' : arg[2] ? `--${arg[2]}` : 'the stages') : 'generate';
        throw new UsageError(`${flag}: ${message(e).replace(/^options\.\w+(\.\w+)? /, '')}`);
      }
      if (opt.json) ctx.out(toJson({ prompt: g.prompt, text: g.text, steps: g.steps }));
      else ctx.out(g.prompt + g.text);
    } finally {
      lm.free();
    }
  },
};
