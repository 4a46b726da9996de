// The Language view's data (what compute and the stepper's data() return,
// `softscope train language --json` writes under "data" and a results file
// brings back), declared once (views/shape.js): the results check, the CLI
// help's outline and the types of index.d.ts (scripts/gen-shapes.js) all
// read it. The phases and measures: the header of model.js. The largest
// lengths are what a run writes, with room to spare: curves of CURVE_POINTS
// (300) and the last, VAL_POINTS (20) validation points, step 0 and the last,
// lengths of 1, 2 and 4 contexts, positions a length (4 × the largest
// context), 8 layers and heads, 5 candidates a step and the drawn one,
// 6 quantizers × 4 bit widths, a few example windows.
import { number, integer, bool, string, list, object, record, nullable, sameLength } from '../shape.js';
import { MAX_NORMALIZERS, CORPORA, PROMPT_MAX, LENGTH_MAX } from './schema.js';
import { MAP_MAX } from './model.js';

const MAX = { curve: 1000, val: 100, lengths: 3, context: 1024, layers: 8, heads: 8, top: 65, quant: 64, example: 8, exampleTokens: 1024,
  vocab: 257, token: 16, error: 1000, params: 16, stages: 16 };

const names = (pick, what) => string({ max: 64, options: pick, what });
const normalizer = names((ss) => ss.kernels('normalizer').map((k) => k.name), 'a normalizer of this build');
const quantizer = names((ss) => ss.kernels('quantizer').map((k) => k.name), 'a quantizer of this build');
const stage = names((ss) => ss.kernels('sampler').filter((k) => k.role === 'decode_stage').map((k) => k.name), 'a decoding stage of this build');
const NaNull = nullable(number());
const prob = nullable(number({ min: 0, max: 1 }));
const nats = nullable(number({ min: 0 }));
const step = integer({ min: 0 });
const token = string({ max: MAX.token, doc: 'a token\'s text (\'\' is BOS)' });
const error = nullable(string({ max: MAX.error }));
const layer = integer({ min: 0, max: MAX.layers - 1 });
const head = integer({ min: 0, max: MAX.heads - 1 });

const curve = (max, name, doc) => object({
  step: list(step, { max }),
  seconds: list(nats, { max, doc: 'training time at the point' }),
  loss: list(nats, { max, doc: 'nats a token' }),
}, { name, doc, rules: [sameLength('step', 'seconds', 'loss')] });

const inspect = nullable(object({
  layer: { ...layer, doc: 'the layer whose maps are kept' },
  n: integer({ min: 1, max: MAP_MAX, doc: 'the window\'s length (at most MAP_MAX)' }),
  texts: list(token, { max: MAP_MAX }),
  trigger: list(bool(), { max: MAP_MAX, doc: 'a Bigram-Backcopy trigger' }),
  maps: list(prob, { max: MAX.heads * MAP_MAX ** 2, doc: 'head × query × key, flat' }),
  heads: list(object({
    layer, head,
    bosMass: { ...prob, doc: 'the mean weight on BOS of the queries at positions >= 1' },
    bosMassTrigger: { ...prob, doc: 'of the queries after a trigger (null: no trigger)' },
    bosMassOther: { ...prob, doc: 'of the other queries' },
    sink: bool({ doc: 'bosMassOther above 0.3' }),
    bosValueNorm: NaNull,
    valueNorm: NaNull,
  }, { name: 'LanguageHead', doc: 'A head\'s BOS measures (every layer).' }), { max: MAX.layers * MAX.heads }),
  residual: list(object({ layer: integer({ min: 0, max: MAX.layers }), bosNorm: NaNull, meanNorm: NaNull, kurtosis: NaNull, maxMedian: NaNull },
    { name: 'LanguageResidual', doc: 'The residual stream after a layer.' }), { max: MAX.layers + 1 }),
  sinks: integer({ min: 0, max: MAX.layers * MAX.heads, doc: 'heads that are sinks' }),
}, { name: 'LanguageInspect', doc: 'One validation window through the model.',
  rules: [(x) => (x.texts.length === x.n && x.trigger.length === x.n ? '' : 'texts and trigger do not hold n tokens'),
    (x) => (x.maps.length % (x.n * x.n) === 0 ? '' : 'maps does not hold heads × n × n weights')] }));

const candidate = object({
  token: integer({ min: 0, max: MAX.vocab }),
  text: token,
  logit: NaNull,
  base: { ...prob, doc: 'softmax of the logits' },
  stages: record(prob, { max: MAX.stages, key: stage, doc: 'each stage\'s probability on the way' }),
  final: prob,
}, { name: 'LanguageCandidate' });

const generation = nullable(object({
  prompt: string({ max: PROMPT_MAX }),
  text: string({ max: 4 * LENGTH_MAX }),
  error,
  steps: list(object({
    token: integer({ min: 0, max: MAX.vocab }),
    text: token,
    kept: nullable(integer({ min: 0, max: MAX.vocab, doc: 'candidates left by the stages' })),
    top: list(candidate, { max: MAX.top }),
  }, { name: 'LanguageGenerationStep' }), { max: LENGTH_MAX }),
}, { name: 'LanguageGeneration', doc: 'The text generated after the prompt through the decoding stages.' }));

const run = object({
  name: normalizer,
  normParams: record(NaNull, { max: MAX.params, doc: 'the normalizer\'s parameters (trained ones as trained: layer 0\'s)' }),
  step: { ...step, doc: 'steps trained' },
  diverged: nullable({ ...step, doc: 'the step whose loss was NaN or infinite' }),
  error: { ...error, doc: 'why the run stopped' },
  seconds: { ...nats, doc: 'training time' },
  tokens: nullable(integer({ min: 0, doc: 'trained on: steps × batch × context (null: an opened model file)' })),
  tokensPerSecond: nats,
  paramCount: integer({ min: 0 }),
  curve: curve(MAX.curve, 'LanguageCurve', 'Training loss, window means.'),
  val: curve(MAX.val, 'LanguageCurve', 'Validation loss.'),
  valLoss: { ...nats, doc: 'the final validation loss' },
  valBits: nats,
  lengths: list(object({
    n: integer({ min: 1, max: 4 * MAX.context }),
    loss: nats,
    positionLoss: list(nats, { max: 4 * MAX.context }),
    error,
  }, { name: 'LanguageLength', doc: 'The loss at each position of windows of n tokens.' }), { max: MAX.lengths }),
  inspect,
  generation,
  floatLoss: { ...nats, doc: 'the quantisation windows\' loss in float' },
  quant: list(object({ quantizer, bits: integer({ min: 1, max: 32 }), loss: nats }, { name: 'LanguageQuant' }), { max: MAX.quant }),
}, { name: 'LanguageRun', doc: 'One normalizer\'s model, trained, evaluated, inspected, generating and quantized.' });

/** The Language view's data. */
export const dataShape = object({
  corpus: string({ max: 32, options: CORPORA }),
  vocab: integer({ min: 2, max: MAX.vocab, doc: 'tokens, BOS included' }),
  bos: bool({ doc: 'windows start with BOS' }),
  context: integer({ min: 1, max: MAX.context }),
  steps: integer({ min: 0, max: 1e7 }),
  batch: integer({ min: 1, max: 1e4 }),
  every: integer({ min: 1, doc: 'steps a curve point' }),
  valEvery: integer({ min: 1, doc: 'steps a validation point' }),
  positions: string({ max: 32, options: (ss) => ss.enums.positions, what: 'a position scheme of this build' }),
  lengthNs: list(integer({ min: 1, max: 4 * MAX.context }), { max: MAX.lengths, doc: 'the lengths evaluated' }),
  lengthNote: nullable(string({ max: MAX.error, doc: 'why only n = context' })),
  unigram: { ...nats, doc: 'nats: the entropy of the validation windows\' tokens' },
  uniform: { ...nats, doc: 'ln of the symbols: a uniform guess' },
  trainTokens: nats,
  validationTokens: { ...nats, doc: 'null: a generator, not a text' },
  bits: list(integer({ min: 1, max: 32 }), { max: 8 }),
  quantizers: list(quantizer, { max: 8 }),
  decoding: object({ on: list(stage, { max: MAX.stages }), values: record(number(), { max: MAX.stages, key: stage }) },
    { name: 'LanguageDecoding', doc: 'The decoding stages on and each stage\'s value as run.' }),
  prompt: string({ max: PROMPT_MAX }),
  genSeed: integer({ min: 0, max: 2 ** 31 - 1 }),
  example: list(object({ texts: list(token, { max: MAX.exampleTokens }), trigger: list(bool(), { max: MAX.exampleTokens }) },
    { name: 'LanguageExample', doc: 'A training window\'s first tokens.', rules: [sameLength('texts', 'trigger')] }), { max: MAX.example }),
  phase: string({ max: 16, options: ['train', 'evaluate', 'inspect', 'generate', 'quantize', 'done'] }),
  progress: number({ min: 0, max: 1, doc: 'of all the work' }),
  sel: integer({ min: 0, max: MAX_NORMALIZERS - 1, doc: 'the run drawn' }),
  layer: { ...layer, doc: 'the layer whose maps are drawn' },
  head: { ...head, doc: 'the head drawn with its tokens' },
  genStep: integer({ min: 0, max: LENGTH_MAX, doc: 'the step whose candidates are drawn (0: the last)' }),
  runs: list(run, { min: 1, max: MAX_NORMALIZERS }),
}, { doc: 'The Language view\'s data: plain JSON, null where a number is not one.',
  rules: [(d) => (d.sel < d.runs.length ? '' : `sel ${d.sel} is not the index of a run`)] });
