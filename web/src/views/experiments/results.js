// A results file's data (what `softscope train --json` writes under "data")
// checked against the experiments view's data shape before anything draws
// it: a file is the page author's input, so every field the figure reads is
// checked for its type (numbers finite or null, names of the registry's
// kernels, lists of the lengths they say). The first problem is returned as
// a sentence for the widget's notice; null when the data can be drawn.
// Nothing here turns a string of the file into markup (Preact draws text).
const PHASES = ['train', 'test', 'quantize', 'done'];
const MAX_RUNS = 4;
const MAX_MAP_N = 64;

const isNum = (x) => typeof x === 'number' && Number.isFinite(x);
const isInt = (x) => Number.isInteger(x);
const numOrNull = (x) => x === null || isNum(x);
const isObj = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);
const isList = (a, ok) => Array.isArray(a) && a.every(ok);
const short = (x) => String(x).slice(0, 40);

// Each checker returns a problem (a string) or '' (fine).
const numbers = (a, what, ok = numOrNull) => (isList(a, ok) ? '' : `${what} is not a list of numbers`);
const fields = (o, what, keys, ok = numOrNull) => {
  if (!isObj(o)) return `${what} is not an object`;
  const bad = keys.find((k) => !ok(o[k]));
  return bad === undefined ? '' : `${what}.${bad} is not a number`;
};

function curveProblem(c, what) {
  if (!isObj(c)) return `${what} is not an object`;
  for (const k of ['step', 'loss', 'accuracy']) {
    const p = numbers(c[k], `${what}.${k}`);
    if (p) return p;
  }
  return c.loss.length === c.step.length && c.accuracy.length === c.step.length ? '' : `${what}: step, loss and accuracy differ in length`;
}

function mapProblem(m, what) {
  if (m === null) return '';
  if (!isObj(m) || ![m.n, m.layers, m.heads].every((x) => isInt(x) && x >= 1)) return `${what} has no n, layers and heads`;
  if (m.n > MAX_MAP_N || m.layers > 2 || m.heads > 4) return `${what} is larger than the view draws`;
  const flat = Array.isArray(m.maps) ? m.maps.flat(3) : null;
  if (!flat || !flat.every(numOrNull)) return `${what}.maps is not a list of numbers`;
  return flat.length === m.layers * m.heads * m.n * m.n ? '' : `${what}.maps does not hold layers × heads × n × n weights`;
}

function runProblem(r, i, normalizers, quantizers) {
  const what = `runs[${i}]`;
  if (!isObj(r)) return `${what} is not an object`;
  if (!normalizers.includes(r.name)) return `${what}.name "${short(r.name)}" is not a normalizer of this build`;
  if (!isObj(r.normParams) || !Object.values(r.normParams).every(numOrNull)) return `${what}.normParams is not an object of numbers`;
  if (r.normParamsByLayer != null && !isList(r.normParamsByLayer, (o) => isObj(o) && Object.values(o).every(numOrNull)))
    return `${what}.normParamsByLayer is not a list of objects of numbers`;
  if (r.error != null && typeof r.error !== 'string') return `${what}.error is not a sentence`;
  const p = fields(r, what, ['step'], isNum) || fields(r, what, ['diverged', 'reached'])
    || curveProblem(r.curve, `${what}.curve`)
    || (Array.isArray(r.lengths) ? '' : `${what}.lengths is not a list`)
    || r.lengths.map((l, j) => fields(l, `${what}.lengths[${j}]`, ['accuracy', 'loss', 'entropy', 'maxWeight', 'support'])
      || fields(l, `${what}.lengths[${j}]`, ['n'], isNum)
      || ['entropyHeads', 'maxWeightHeads', 'supportHeads'].map((k) => (l[k] === undefined ? '' : numbers(l[k], `${what}.lengths[${j}].${k}`))).find(Boolean)
      || '').find(Boolean)
    || mapProblem(r.map, `${what}.map`)
    || (Array.isArray(r.heads) ? '' : `${what}.heads is not a list`)
    || r.heads.map((h, j) => fields(h, `${what}.heads[${j}]`, ['layer', 'head'], isInt) || fields(h, `${what}.heads[${j}]`, ['sinkRate', 'kurtosis', 'maxMedian'])
      || (h.sink === undefined || typeof h.sink === 'boolean' ? '' : `${what}.heads[${j}].sink is not true or false`)).find(Boolean)
    || (Array.isArray(r.quant) ? '' : `${what}.quant is not a list`)
    || r.quant.map((q, j) => (quantizers.includes(q?.quantizer) ? fields(q, `${what}.quant[${j}]`, ['bits'], isNum) || fields(q, `${what}.quant[${j}]`, ['accuracy'])
      : `${what}.quant[${j}].quantizer "${short(q?.quantizer)}" is not a quantizer of this build`)).find(Boolean)
    || (r.floatAccuracy === undefined ? '' : fields(r, what, ['floatAccuracy']));
  return p || '';
}

/**
 * The first problem of a results file's data for the experiments view (a
 * sentence), or null when the figure can draw it. ss: the instance (its
 * registry names the normalizers and quantizers a run may name).
 */
export function resultsProblem(data, ss) {
  if (!isObj(data)) return 'no data object';
  if (typeof data.task !== 'string') return 'data.task is not a name';
  const top = fields(data, 'data', ['classes', 'chance', 'steps', 'progress'], isNum)
    || (data.every === undefined ? '' : fields(data, 'data', ['every'], isNum))
    || numbers(data.trainN, 'data.trainN', isNum) || (data.trainN.length === 2 ? '' : 'data.trainN is not [min, max]')
    || numbers(data.testN, 'data.testN', isNum) || numbers(data.bits, 'data.bits', isNum)
    || (PHASES.includes(data.phase) ? '' : `data.phase "${short(data.phase)}" is not one of ${PHASES.join(', ')}`)
    || (Array.isArray(data.runs) && data.runs.length >= 1 && data.runs.length <= MAX_RUNS ? '' : `data.runs is not a list of 1 to ${MAX_RUNS} runs`)
    || (isInt(data.sel) && data.sel >= 0 && data.sel < data.runs.length ? '' : 'data.sel is not the index of a run');
  if (top) return top;
  const normalizers = ss.kernels('normalizer').map((k) => k.name);
  const quantizers = ss.kernels('quantizer').map((k) => k.name);
  return data.runs.map((r, i) => runProblem(r, i, normalizers, quantizers)).find(Boolean) || null;
}
