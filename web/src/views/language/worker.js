// The Language view's Web Worker: trains (the view's stepper, the same code
// as `softscope train language`), or opens a saved model file and generates
// from it, off the main thread, so the page keeps painting. The page only
// draws the data posted here.
//
// Messages in:
//   { type: 'train', state, text, play }  a new run (the stepper of
//        views/language: start(ss, state, { text })); plays at once, or
//        waits paused for 'play' / 'step' (play false)
//   { type: 'play' } | { type: 'pause' }   go on / hold (the models stay)
//   { type: 'step' }     one step: every run's next slice (SLICE training
//        steps each), or the next unit of work once training is over
//   { type: 'update', state }  a display key changed (the training keys are
//        the run's): the stepper redoes the generation or the inspection,
//        playing or not; a loaded model generates again
//   { type: 'load', bytes, state }  a model file (loadLanguageModel): the
//        run ends, the model generates (and its attention on the text is
//        inspected) for the state's display keys
//   { type: 'save' }     the shown run's model file (lm.save())
// Out: { type: 'data', mode: 'train' | 'model', data, status: 'running' | 'paused' | 'done' } (about
// every POST_MS while it plays, and after every message), { type: 'loaded',
// data, options, steps }, { type: 'saved', bytes, name },
// { type: 'error', message, about: 'train' | 'load' | 'save' }. The page
// resets by terminating the worker.
import { createSoftscope } from 'softscope';
import { loadLanguageModel } from 'softscope/analysis';
import { language, generationKey, decodingOf, MAP_MAX } from 'softscope/views/language';

const SLICE_MS = 40; // a unit of the stepper at most this often between checks for messages
const POST_MS = 150; // the data posted at most this often while it plays (a structured clone of every curve)
const STEP_UNITS = 400; // a single step's most units (a step of every run, when they are slow)

const pause = () => new Promise((resolve) => setTimeout(resolve, 0));
const now = () => performance.now();
const fin = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const r4 = (v) => (Number.isFinite(v) ? Math.round(v * 1e4) / 1e4 : null);
const message = (e) => String(e?.message ?? e);

let ssPromise = null;
const softscope = () => (ssPromise ??= createSoftscope({ impl: 'auto' }));

// ---- a training run: the view's stepper ----

let run = null; // { stepper, state, playing, over, last (data), made: [{ gen, insp }] }
let looping = false;

function endRun() {
  run?.stepper.stop();
  run = null;
}

// What of a run's data is stale for the current display keys (the stepper's own order: per run, the inspection,
// then the generation): { i, kind } or null. The stepper redoes exactly that part on its next unit.
function firstStale(r) {
  const runs = r.last?.runs ?? [];
  for (let i = 0; i < runs.length; i++) {
    const x = runs[i];
    if (x.error !== null || x.diverged !== null) continue;
    if (x.inspect && r.made[i].insp !== r.state.layer) return { i, kind: 'insp' };
    if (x.generation && r.made[i].gen !== generationKey(r.state)) return { i, kind: 'gen' };
  }
  return null;
}

// One unit of the stepper's work (a slice of one run, a validation, a redo): whether there is more.
function unit(r) {
  const redo = firstStale(r);
  const more = r.stepper.step(0);
  r.last = r.stepper.data();
  if (redo) {
    r.made[redo.i][redo.kind] = redo.kind === 'insp' ? r.state.layer : generationKey(r.state);
  } else {
    r.last.runs.forEach((x, i) => {
      if (x.inspect && r.made[i].insp === undefined) r.made[i].insp = r.state.layer;
      if (x.generation && r.made[i].gen === undefined) r.made[i].gen = generationKey(r.state);
    });
  }
  if (!more) r.over = true;
  return more;
}

const statusOf = (r) => (r.over ? 'done' : r.playing ? 'running' : 'paused');
const post = (r) => self.postMessage({ type: 'data', mode: 'train', data: r.last, status: statusOf(r) });

async function play(r) {
  if (looping) return;
  looping = true;
  try {
    let posted = now();
    while (run === r && r.playing && !r.over) {
      const t0 = now();
      while (!r.over && now() - t0 < SLICE_MS) unit(r);
      if (r.over) r.playing = false;
      if (r.over || now() - posted >= POST_MS) {
        post(r);
        posted = now();
      }
      await pause(); // (the worker's own event loop: a message in between)
    }
  } catch (err) {
    fail('train', err);
  } finally {
    looping = false;
  }
}

// The stale parts redone (paused or done: the display keys moved), then the data posted.
function refresh(r) {
  for (let k = 0; k < 64 && firstStale(r); k++) unit(r);
  post(r);
}

// A single step: units until every live run has trained one more slice (or training is over: one unit).
function singleStep(r) {
  if (r.over) return post(r);
  const live = (d) => d.runs.filter((x) => x.error === null && x.diverged === null);
  const before = new Map(live(r.last).map((x) => [x.name, x.step]));
  const training = r.last.phase === 'train';
  for (let k = 0; k < STEP_UNITS && !r.over; k++) {
    unit(r);
    if (!training || r.last.phase !== 'train') break;
    if (live(r.last).every((x) => x.step > (before.get(x.name) ?? -1) || x.step >= r.last.steps)) break;
  }
  post(r);
}

// ---- a model file: generation (and the attention on its text) without training ----

let opened = null; // { lm, state }

// The inspection in the stepper's shape (views/language/model.js: inspect()), on the model's own text.
function inspectOf(lm, text, layer, triggers) {
  const C = lm.options.context;
  const chars = Array.from(text).slice(0, Math.max(1, C - (lm.usesBos ? 1 : 0))).join('');
  if (!chars && !lm.usesBos) return null;
  const x = lm.inspect({ text: chars });
  const L = Math.min(Math.max(0, layer), x.layers - 1);
  const m = Math.min(x.n, MAP_MAX), H = x.heads, nn = x.n * x.n;
  const maps = new Array(H * m * m);
  for (let h = 0; h < H; h++) {
    const at = (L * H + h) * nn;
    for (let i = 0; i < m; i++) for (let j = 0; j < m; j++) maps[(h * m + i) * m + j] = r4(x.maps[at + i * x.n + j]);
  }
  const heads = x.headStats.map((h) => ({ layer: h.layer, head: h.head, bosMass: fin(h.bosMass), bosMassTrigger: fin(h.bosMassTrigger),
    bosMassOther: fin(h.bosMassOther), sink: !!h.sink, bosValueNorm: fin(h.bosValueNorm), valueNorm: fin(h.valueNorm) }));
  return { layer: L, n: m, texts: x.texts.slice(0, m), trigger: Array.from(x.tokens.subarray(0, m), (t) => triggers.has(t)), maps, heads,
    residual: x.residual.map((q) => ({ layer: q.layer, bosNorm: fin(q.bosNorm), meanNorm: fin(q.meanNorm), kurtosis: fin(q.kurtosis), maxMedian: fin(q.maxMedian) })),
    sinks: heads.filter((h) => h.sink).length };
}

// The data of views/language (its shape: the header of views/language/model.js) for an opened model: one run, no
// curves (they are the results file's, when the page has one), its generation for the state's display keys.
function modelData(ss, lm, s, steps = lm.steps) {
  const o = lm.options, dec = decodingOf(ss, s), V = lm.vocab.size, triggers = new Set(lm.vocab.triggers);
  let generation, inspect = null;
  try {
    const out = lm.generate({ prompt: s.prompt, length: s.length, on: dec.on, stages: dec.values, seed: s.genSeed, top: 5 });
    generation = { prompt: s.prompt, text: out.text, error: null, steps: out.steps.map((st) => ({ token: st.token, text: st.text, kept: st.kept,
      top: st.top.map((c) => ({ token: c.token, text: c.text, logit: fin(c.logit), base: fin(c.base),
        stages: Object.fromEntries(Object.entries(c.stages).map(([k, v]) => [k, fin(v)])), final: fin(c.final) })) })) };
    inspect = inspectOf(lm, s.prompt + out.text, s.layer, triggers);
  } catch (e) {
    if (typeof e?.code !== 'string' || e.name === 'SoftscopeTrapError') throw e;
    generation = { prompt: s.prompt, text: '', error: e.message, steps: [] };
  }
  const k = ss.kernel(o.normalizer, 'normalizer');
  const normParams = Object.fromEntries((k?.params ?? []).map((p) => [p.name, fin(o.normalizerParams?.[p.name] ?? p.default)]));
  const arena = lm.model.config.trainNormParams ? lm.model.params() : null;
  const t = arena && lm.model.tensors().find((x) => x.kind === 'normalizer' && x.layer === 0);
  if (t) k.params.filter((p) => p.type === 'float').forEach((p, j) => { normParams[p.name] = fin(arena[t.offset + j]); });
  const empty = () => ({ step: [], seconds: [], loss: [] });
  return {
    corpus: o.corpus, vocab: V, bos: lm.usesBos, context: o.context, steps, batch: o.batch, every: 1, valEvery: 1,
    positions: o.positions, lengthNs: [], lengthNote: null, unigram: null, uniform: fin(Math.log(V - 1)), trainTokens: null, validationTokens: null,
    bits: [], quantizers: [], decoding: dec, prompt: s.prompt, genSeed: s.genSeed, example: [],
    phase: 'done', progress: 1, sel: 0, layer: inspect?.layer ?? s.layer, head: s.head, genStep: s.genStep,
    runs: [{ name: o.normalizer, normParams, step: steps, diverged: null, error: null, seconds: null, tokens: null, tokensPerSecond: null,
      paramCount: lm.model.paramCount, curve: empty(), val: empty(), valLoss: null, valBits: null, lengths: [], inspect, generation,
      floatLoss: null, quant: [] }],
  };
}

let regen = null; // a generation asked for; several in a row collapse into the last
function generateLater(ss) {
  if (regen) return;
  regen = setTimeout(() => {
    regen = null;
    if (!opened) return;
    try {
      self.postMessage({ type: 'data', mode: 'model', data: modelData(ss, opened.lm, opened.state, opened.steps), status: 'done' });
    } catch (err) {
      fail('load', err);
    }
  }, 0);
}

// The steps a model file was trained for (its header's; loadLanguageModel has checked the file: an integer).
function savedSteps(bytes) {
  try {
    const n = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(8, true);
    const steps = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + n))).steps;
    return Number.isInteger(steps) ? steps : null;
  } catch {
    return null;
  }
}

function closeModel() {
  opened?.lm.free();
  opened = null;
}

// ---- messages ----

function fail(about, err) {
  self.postMessage({ type: 'error', about, message: message(err) });
}

self.onmessage = async ({ data: m }) => {
  let ss;
  try {
    ss = await softscope();
  } catch (err) {
    return fail(m.type === 'load' ? 'load' : 'train', err);
  }
  switch (m.type) {
    case 'train': {
      endRun();
      closeModel();
      let stepper;
      try {
        stepper = language.start(ss, m.state, { text: m.text });
      } catch (err) {
        return fail('train', err);
      }
      const r = (run = { stepper, state: m.state, playing: !!m.play, over: false, last: stepper.data(), made: m.state.normalizers.map(() => ({})) });
      post(r);
      if (r.playing) play(r);
      return;
    }
    case 'play':
      if (run && !run.over) {
        run.playing = true;
        post(run);
        play(run);
      }
      return;
    case 'pause':
      if (run) {
        run.playing = false;
        post(run);
      }
      return;
    case 'step':
      if (run && !run.playing) {
        try {
          singleStep(run);
        } catch (err) {
          fail('train', err);
        }
      }
      return;
    case 'update':
      if (run) {
        if (!run.stepper.update(m.state)) return fail('train', new Error('the training keys changed: train again'));
        run.state = m.state;
        try {
          if (!run.playing) refresh(run); // (playing: the next unit redoes what is stale)
        } catch (err) {
          fail('train', err);
        }
      } else if (opened) {
        opened.state = m.state;
        generateLater(ss);
      }
      return;
    case 'load': {
      let lm;
      try {
        lm = loadLanguageModel(ss, m.bytes);
      } catch (err) {
        return fail('load', err);
      }
      endRun();
      closeModel();
      opened = { lm, state: m.state, steps: savedSteps(m.bytes) ?? lm.steps };
      try {
        const data = modelData(ss, lm, m.state, opened.steps);
        const { textChars: _t, ...options } = lm.options;
        self.postMessage({ type: 'loaded', data, options: JSON.parse(JSON.stringify(options)), steps: opened.steps });
      } catch (err) {
        closeModel();
        fail('load', err);
      }
      return;
    }
    case 'save': {
      try {
        const bytes = run ? run.stepper.save() : opened ? opened.lm.save() : null;
        if (!bytes) return fail('save', new Error('no model to save: train or open one first'));
        const name = run ? (run.state.sel ?? run.state.normalizers[0]) : opened.lm.options.normalizer;
        self.postMessage({ type: 'saved', bytes, name }, [bytes.buffer]);
      } catch (err) {
        fail('save', err);
      }
      return;
    }
    default:
  }
};
