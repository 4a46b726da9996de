// The Experiments view's data (what compute and the stepper's data() return,
// `softscope train --json` writes under "data" and a results file brings
// back), declared once (views/shape.js): the results check, the CLI help's
// outline and the types of index.d.ts (scripts/gen-shapes.js) all read it.
// The largest lengths are what a run writes, with room to spare: 4 runs,
// curves of CURVE_POINTS (400) points and the last, 10 test lengths (trainMax
// and powers of 2 to 4096), maps of at most 2 layers × 4 heads × 64 × 64,
// 6 quantizers × 7 bit widths.
import { number, integer, bool, string, list, object, record, nullable, sameLength } from '../shape.js';
import { MAX_NORMALIZERS } from './schema.js';

const names = (family, what) => string({ max: 64, options: (ss) => ss.kernels(family).map((k) => k.name), what });
const normalizer = names('normalizer', 'a normalizer of this build');
const quantizer = names('quantizer', 'a quantizer of this build');
const NaNull = nullable(number());
const prob = nullable(number({ min: 0, max: 1 }));
const nonneg = nullable(number({ min: 0 }));
const step = integer({ min: 0 });
const MAX = { curve: 1000, lengths: 16, layers: 2, heads: 4, mapN: 64, quant: 64, params: 16 };
const params = record(NaNull, { max: MAX.params, doc: 'parameter name -> value' });

const perHead = list(NaNull, { max: MAX.heads });

const map = nullable(object({
  n: integer({ min: 1, max: MAX.mapN }),
  layers: integer({ min: 1, max: MAX.layers }),
  heads: integer({ min: 1, max: MAX.heads }),
  maps: list(prob, { max: MAX.layers * MAX.heads * MAX.mapN ** 2, doc: 'layer × head × query × key, flat' }),
}, { name: 'ExperimentsMap', doc: 'One test example\'s attention weights at n = mapN.',
  rules: [(m) => (m.maps.length === m.layers * m.heads * m.n * m.n ? '' : `maps holds ${m.maps.length} weights, not layers × heads × n × n`)] }));

const run = object({
  name: normalizer,
  normParams: { ...params, doc: 'the normalizer\'s parameters (trained ones as trained: layer 0\'s)' },
  normParamsByLayer: nullable(list(params, { max: MAX.layers, doc: 'each layer\'s trained parameters (null unless trained)' })),
  step: { ...step, doc: 'steps trained' },
  diverged: nullable({ ...step, doc: 'the step whose loss was NaN or infinite' }),
  reached: nullable({ ...step, doc: 'the first curve step whose window\'s mean training accuracy reached 0.95' }),
  error: nullable(string({ max: 1000, doc: 'why the run stopped' })),
  curve: object({
    step: list(step, { max: MAX.curve }),
    loss: list(nonneg, { max: MAX.curve }),
    accuracy: list(prob, { max: MAX.curve }),
  }, { name: 'ExperimentsCurve', doc: 'Training loss and accuracy, window means.', rules: [sameLength('step', 'loss', 'accuracy')] }),
  lengths: list(object({
    n: integer({ min: 1, max: 4096 }),
    accuracy: prob,
    loss: nonneg,
    entropy: { ...NaNull, doc: 'the last layer\'s query-row entropy, the heads\' mean (null: a signed normalizer)' },
    maxWeight: NaNull,
    support: NaNull,
    entropyHeads: perHead,
    maxWeightHeads: perHead,
    supportHeads: perHead,
  }, { name: 'ExperimentsLength', doc: 'The test at one length.' }), { max: MAX.lengths }),
  map,
  heads: list(object({
    layer: integer({ min: 0, max: MAX.layers - 1 }),
    head: integer({ min: 0, max: MAX.heads - 1 }),
    sinkRate: { ...prob, doc: 'the query row\'s mean weight on key 0' },
    sink: bool({ doc: 'sinkRate above 0.3' }),
    kurtosis: NaNull,
    maxMedian: NaNull,
  }, { name: 'ExperimentsHead', doc: 'A head\'s measures at trainMax.' }), { max: MAX.layers * MAX.heads }),
  quant: list(object({
    quantizer,
    bits: integer({ min: 1, max: 32 }),
    accuracy: prob,
  }, { name: 'ExperimentsQuant' }), { max: MAX.quant }),
  floatAccuracy: { ...prob, doc: 'the accuracy at trainMax with float weights' },
}, { name: 'ExperimentsRun', doc: 'One normalizer\'s model, trained, tested and quantized.' });

/** The Experiments view's data. */
export const dataShape = object({
  task: string({ max: 64, options: (ss) => ss.enums.task, what: 'a task of this build' }),
  classes: integer({ min: 1, max: 1024, doc: 'the answer\'s classes' }),
  chance: { ...prob, nullable: false, doc: '1 / classes' },
  trainN: list(integer({ min: 1, max: 4096 }), { length: 2, doc: 'the training lengths [min, max]' }),
  testN: list(integer({ min: 1, max: 4096 }), { max: MAX.lengths, doc: 'the test lengths' }),
  steps: step,
  every: integer({ min: 1, doc: 'steps a curve point' }),
  bits: list(integer({ min: 1, max: 32 }), { max: 8 }),
  phase: string({ max: 16, options: ['train', 'test', 'quantize', 'done'] }),
  progress: number({ min: 0, max: 1, doc: 'of all the work' }),
  sel: integer({ min: 0, max: MAX_NORMALIZERS - 1, doc: 'the run whose attention is drawn' }),
  runs: list(run, { min: 1, max: MAX_NORMALIZERS }),
}, { doc: 'The Experiments view\'s data: plain JSON, null where a number is not one.',
  rules: [(d) => (d.sel < d.runs.length ? '' : `sel ${d.sel} is not the index of a run`)] });
