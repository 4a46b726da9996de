// A results file's data (what `softscope train language --json` writes under
// "data", the shape documented in the header of wasm/views/language/model.js)
// checked before anything draws it: a file is the page author's input, so
// every field the figure reads is checked for its type (numbers finite or
// null, names of the registry's kernels, token texts short strings) and every
// list for the size a real run produces (issue 38 R4/R5: no count taken from
// a file is looped over unbounded, no string of the file is longer than the
// view writes). The first problem is returned as a sentence for the widget's
// notice; null when the data can be drawn. Nothing here turns a string of
// the file into markup (Preact and the figure draw text nodes).
import { MAX_NORMALIZERS, LENGTH_MAX, PROMPT_MAX, MAP_MAX } from 'softscope/views/language';

const PHASES = ['train', 'evaluate', 'inspect', 'generate', 'quantize', 'done'];
const CORPORA = ['grammar', 'bigram_backcopy', 'text'];
// The most of each list a run of the view writes (with room to spare): curve points (CURVE_POINTS 300 and the
// last), validation points (VAL_POINTS 20, step 0 and the last), lengths (1, 2 and 4 contexts), positions a
// length (4 x the largest context), layers and heads, candidates a step (top 5 and the drawn one), quantized
// points (6 quantizers x 4 bit widths), example windows and their tokens.
const MAX = { curve: 1000, val: 100, lengths: 3, positions: 4 * 1024, layers: 8, heads: 8, top: 65, quant: 64, example: 8, exampleTokens: 1024,
  vocab: 257, context: 1024, steps: 1e7, token: 16, text: 4 * LENGTH_MAX, error: 1000, params: 16 };

const isNum = (x) => typeof x === 'number' && Number.isFinite(x);
const isInt = (x) => Number.isInteger(x);
const numOrNull = (x) => x === null || isNum(x);
const isObj = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);
const short = (x) => String(x).slice(0, 40);
const isStr = (x, max) => typeof x === 'string' && x.length <= max;

// Each checker returns a problem (a string) or '' (fine).
function list(a, what, max, ok = numOrNull, kind = 'numbers') {
  if (!Array.isArray(a)) return `${what} is not a list`;
  if (a.length > max) return `${what} holds ${a.length} items; a run writes at most ${max}`;
  for (let i = 0; i < a.length; i++) if (!ok(a[i])) return `${what} is not a list of ${kind}`;
  return '';
}
const fields = (o, what, keys, ok = numOrNull) => {
  if (!isObj(o)) return `${what} is not an object`;
  const bad = keys.find((k) => !ok(o[k]));
  return bad === undefined ? '' : `${what}.${bad} is not a number`;
};
const optional = (x, what, max) => (x === null || x === undefined || isStr(x, max) ? '' : `${what} is not a sentence of at most ${max} characters`);
const numbersObj = (o, what) => (isObj(o) && Object.keys(o).length <= MAX.params && Object.values(o).every(numOrNull) ? '' : `${what} is not an object of numbers`);

function curveProblem(c, what, max) {
  if (!isObj(c)) return `${what} is not an object`;
  for (const k of ['step', 'seconds', 'loss']) {
    const p = list(c[k], `${what}.${k}`, max);
    if (p) return p;
  }
  return c.loss.length === c.step.length && c.seconds.length === c.step.length ? '' : `${what}: step, seconds and loss differ in length`;
}

function inspectProblem(x, what) {
  if (x === null || x === undefined) return '';
  if (!isObj(x)) return `${what} is not an object`;
  if (!isInt(x.n) || x.n < 1 || x.n > MAP_MAX) return `${what}.n is not a window length of 1 to ${MAP_MAX}`;
  if (!isInt(x.layer) || x.layer < 0 || x.layer >= MAX.layers) return `${what}.layer is not a layer`;
  const p = list(x.texts, `${what}.texts`, x.n, (t) => isStr(t, MAX.token), 'token texts')
    || list(x.trigger, `${what}.trigger`, x.n, (t) => typeof t === 'boolean', 'true or false')
    || list(x.maps, `${what}.maps`, MAX.heads * x.n * x.n)
    || (x.maps.length % (x.n * x.n) === 0 ? '' : `${what}.maps does not hold heads × n × n weights`)
    || list(x.heads, `${what}.heads`, MAX.layers * MAX.heads, isObj, 'objects')
    || x.heads.map((h, j) => fields(h, `${what}.heads[${j}]`, ['layer', 'head'], isInt)
      || fields(h, `${what}.heads[${j}]`, ['bosMass', 'bosMassTrigger', 'bosMassOther', 'bosValueNorm', 'valueNorm'])
      || (h.sink === undefined || typeof h.sink === 'boolean' ? '' : `${what}.heads[${j}].sink is not true or false`)).find(Boolean)
    || list(x.residual, `${what}.residual`, MAX.layers + 1, isObj, 'objects')
    || x.residual.map((q, j) => fields(q, `${what}.residual[${j}]`, ['layer'], isInt) || fields(q, `${what}.residual[${j}]`, ['bosNorm', 'meanNorm', 'kurtosis', 'maxMedian'])).find(Boolean)
    || (x.sinks === undefined || numOrNull(x.sinks) ? '' : `${what}.sinks is not a number`);
  return p || '';
}

function generationProblem(g, what, stages) {
  if (g === null || g === undefined) return '';
  if (!isObj(g)) return `${what} is not an object`;
  const p = (isStr(g.prompt, PROMPT_MAX) ? '' : `${what}.prompt is not a prompt of at most ${PROMPT_MAX} characters`)
    || (isStr(g.text, MAX.text) ? '' : `${what}.text is not a text of at most ${MAX.text} characters`)
    || optional(g.error, `${what}.error`, MAX.error)
    || list(g.steps, `${what}.steps`, LENGTH_MAX, isObj, 'objects');
  if (p) return p;
  for (let i = 0; i < g.steps.length; i++) {
    const st = g.steps[i], w = `${what}.steps[${i}]`;
    const q = fields(st, w, ['token'], isInt) || fields(st, w, ['kept'])
      || (isStr(st.text, MAX.token) ? '' : `${w}.text is not a token's text`)
      || list(st.top, `${w}.top`, MAX.top, isObj, 'objects')
      || st.top.map((c, j) => fields(c, `${w}.top[${j}]`, ['token'], isInt) || fields(c, `${w}.top[${j}]`, ['logit', 'base', 'final'])
        || (isStr(c.text, MAX.token) ? '' : `${w}.top[${j}].text is not a token's text`)
        || (isObj(c.stages) && Object.entries(c.stages).every(([k, v]) => stages.includes(k) && numOrNull(v)) ? ''
          : `${w}.top[${j}].stages is not an object of decoding stages and numbers`)).find(Boolean);
    if (q) return q;
  }
  return '';
}

function runProblem(r, i, names) {
  const what = `runs[${i}]`;
  if (!isObj(r)) return `${what} is not an object`;
  if (!names.normalizers.includes(r.name)) return `${what}.name "${short(r.name)}" is not a normalizer of this build`;
  const p = numbersObj(r.normParams, `${what}.normParams`)
    || optional(r.error, `${what}.error`, MAX.error)
    || fields(r, what, ['step'], isNum) || fields(r, what, ['diverged', 'seconds', 'tokensPerSecond', 'valLoss', 'valBits', 'floatLoss'])
    || curveProblem(r.curve, `${what}.curve`, MAX.curve)
    || curveProblem(r.val, `${what}.val`, MAX.val)
    || list(r.lengths, `${what}.lengths`, MAX.lengths, isObj, 'objects')
    || r.lengths.map((l, j) => fields(l, `${what}.lengths[${j}]`, ['n'], isInt) || fields(l, `${what}.lengths[${j}]`, ['loss'])
      || list(l.positionLoss, `${what}.lengths[${j}].positionLoss`, MAX.positions)
      || optional(l.error, `${what}.lengths[${j}].error`, MAX.error)).find(Boolean)
    || inspectProblem(r.inspect, `${what}.inspect`)
    || generationProblem(r.generation, `${what}.generation`, names.stages)
    || list(r.quant, `${what}.quant`, MAX.quant, isObj, 'objects')
    || r.quant.map((q, j) => (names.quantizers.includes(q.quantizer) ? fields(q, `${what}.quant[${j}]`, ['bits'], isInt) || fields(q, `${what}.quant[${j}]`, ['loss'])
      : `${what}.quant[${j}].quantizer "${short(q.quantizer)}" is not a quantizer of this build`)).find(Boolean);
  return p || '';
}

function exampleProblem(ex) {
  if (ex === undefined) return '';
  const p = list(ex, 'data.example', MAX.example, isObj, 'objects');
  if (p) return p;
  return ex.map((x, i) => list(x.texts, `data.example[${i}].texts`, MAX.exampleTokens, (t) => isStr(t, MAX.token), 'token texts')
    || list(x.trigger, `data.example[${i}].trigger`, MAX.exampleTokens, (t) => typeof t === 'boolean', 'true or false')).find(Boolean) || '';
}

/**
 * The first problem of a results file's data for the language view (a sentence), or null when the figure can draw
 * it. ss: the instance (its registry names the normalizers, quantizers and decoding stages a run may name).
 */
export function resultsProblem(data, ss) {
  if (!isObj(data)) return 'no data object';
  if (!CORPORA.includes(data.corpus)) return `data.corpus "${short(data.corpus)}" is not one of ${CORPORA.join(', ')}`;
  const stages = ss.kernels('sampler').filter((k) => k.role === 'decode_stage').map((k) => k.name);
  const bounded = (k, lo, hi) => (isInt(data[k]) && data[k] >= lo && data[k] <= hi ? '' : `data.${k} is not an integer in [${lo}, ${hi}]`);
  const top = bounded('vocab', 2, MAX.vocab) || bounded('context', 1, MAX.context) || bounded('steps', 0, MAX.steps) || bounded('batch', 1, 1e4)
    || fields(data, 'data', ['progress'], isNum) || fields(data, 'data', ['unigram', 'uniform', 'every', 'valEvery', 'genSeed'])
    || (PHASES.includes(data.phase) ? '' : `data.phase "${short(data.phase)}" is not one of ${PHASES.join(', ')}`)
    || optional(data.lengthNote, 'data.lengthNote', MAX.error)
    || (data.prompt === undefined || isStr(data.prompt, PROMPT_MAX) ? '' : `data.prompt is not a prompt of at most ${PROMPT_MAX} characters`)
    || (data.decoding === undefined || (isObj(data.decoding) && Array.isArray(data.decoding.on) && data.decoding.on.every((n) => stages.includes(n))
      && isObj(data.decoding.values) && Object.entries(data.decoding.values).every(([k, v]) => stages.includes(k) && isNum(v)))
      ? '' : 'data.decoding is not the decoding stages on and their values')
    || (data.lengthNs === undefined ? '' : list(data.lengthNs, 'data.lengthNs', MAX.lengths, isInt, 'integers'))
    || (data.bits === undefined ? '' : list(data.bits, 'data.bits', 8, isInt, 'integers'))
    || exampleProblem(data.example)
    || (Array.isArray(data.runs) && data.runs.length >= 1 && data.runs.length <= MAX_NORMALIZERS ? '' : `data.runs is not a list of 1 to ${MAX_NORMALIZERS} runs`)
    || (isInt(data.sel) && data.sel >= 0 && data.sel < data.runs.length ? '' : 'data.sel is not the index of a run');
  if (top) return top;
  const names = { normalizers: ss.kernels('normalizer').map((k) => k.name), quantizers: ss.kernels('quantizer').map((k) => k.name), stages };
  return data.runs.map((r, i) => runProblem(r, i, names)).find(Boolean) || null;
}
