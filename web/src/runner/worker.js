// The one Web Worker of the playground and the widget: runs any view's long
// work off the main thread (the Performance view's timing, the Experiments
// and Language views' training), so the page keeps painting. useRunner
// (runner/useRunner.js) drives it; the page only draws what it posts.
//
// Messages in:
//   { type: 'start', run, view, state, input, play, step, build, wasm, via }
//        a new run (run: the page's number of it, echoed in every answer):
//        the view's measure(state, { onProgress }) for a measured view,
//        else its stepper, start(ss, state, input), or the view's own
//        worker.start[via](ss, state, input) (language: 'open', a model
//        file that generates without training). The wasm: the build the page
//        runs (build, e.g. 'relaxed'; wasm: its URL when the page gives one,
//        else the API finds it next to this file). The previous run ends; a
//        run of another kind (via) ends it only once it has started (a bad
//        model file leaves the training).
//        step: paused after one step (below).
//   { type: 'play' } | { type: 'pause' }  go on / hold (the work stays)
//   { type: 'step' }   paused: one step (the stepper's advance(), else one unit)
//   { type: 'update', state }  a state of the same run key (state/schema.js
//        runKey: display fields only): the stepper takes it; paused or done,
//        the part it redoes in place is redone at once
//   { type: 'call', id, name, args }  a command of the view's worker hook
//        (worker.calls[name](stepper, args); language: 'save', the model file)
//   { type: 'dispose' }  the run ends (its stepper stopped)
// Out: { type: 'data', run, data, status: 'running' | 'paused' | 'done',
// progress } (the stepper's data() about every POST_MS while it plays, and
// after every message; a measurement posts its progress, then its timings),
// { type: 'started', run, info } (the stepper's info(), if any),
// { type: 'reply', id, value }, { type: 'error', run, id, about: 'start' |
// 'run' | 'call', message }.
import { createSoftscope } from 'softscope';

const SLICE_MS = 40; // a stepper slice between checks for messages
const POST_MS = 150; // the data posted at most this often while it plays (a structured clone of every curve)
const REDO_UNITS = 64; // the most units an update redoes at once when paused or done

const pause = () => new Promise((resolve) => setTimeout(resolve, 0));
const now = () => performance.now();
const message = (e) => String(e?.message ?? e);

const instances = new Map(); // build|wasm -> Promise<Softscope>
const softscope = (build, wasm) => {
  const key = `${build}|${wasm ?? ''}`;
  if (!instances.has(key)) {
    const p = createSoftscope(wasm ? { impl: build ?? 'auto', wasm } : { impl: build ?? 'auto' });
    p.catch(() => instances.delete(key)); // (a failed load is tried again by the next start)
    instances.set(key, p);
  }
  return instances.get(key);
};
// (the view's module only, by its folder: its start, measure and worker hook)
const viewOf = async (id) => (await import('softscope/views/load')).loadView(id);

let cur = null; // { run, v, stepper, playing, over, looping }

const post = (m, transfer) => self.postMessage(m, transfer ?? []);
const statusOf = (r) => (r.over ? 'done' : r.playing ? 'running' : 'paused');
const postData = (r) => post({ type: 'data', run: r.run, data: r.stepper.data(), status: statusOf(r) });
const fail = (r, about, err, id) => post({ type: 'error', run: r?.run ?? null, id, about, message: message(err) });

function end() {
  cur?.stepper?.stop?.();
  cur = null;
}

async function play(r) {
  if (r.looping) return;
  r.looping = true;
  try {
    let posted = now();
    while (cur === r && r.playing && !r.over) {
      if (!r.stepper.step(SLICE_MS)) { r.over = true; r.playing = false; }
      if (r.over || now() - posted >= POST_MS) {
        postData(r);
        posted = now();
      }
      await pause(); // (the worker's own event loop: a message in between)
    }
  } catch (err) {
    r.over = true;
    r.playing = false;
    fail(r, 'run', err);
  } finally {
    r.looping = false;
  }
}

async function measure(r, v, state) {
  try {
    const timings = await v.measure(state, { onProgress: (p) => { if (cur === r) post({ type: 'data', run: r.run, data: null, status: 'running', progress: p }); } });
    if (cur !== r) return;
    r.over = true;
    post({ type: 'data', run: r.run, data: timings, status: 'done' });
  } catch (err) {
    if (cur === r) fail(r, 'run', err);
  }
}

async function start(m) {
  let v, stepper = null;
  if (!m.via) end(); // (a run of another kind, a model file, ends the run only once it has started)
  try {
    v = await viewOf(m.view);
    if (!m.via && v.measure) {
      end();
      cur = { run: m.run, v, stepper: null, playing: true, over: false };
      measure(cur, v, m.state); // (not awaited: a later start or dispose ends it)
      return;
    }
    const ss = await softscope(m.build, m.wasm);
    const begin = m.via ? v.worker?.start?.[m.via] : v.start;
    if (!begin) throw new Error(`the ${m.view} view has no ${m.via ? `'${m.via}' start` : 'stepper'}`);
    stepper = begin(ss, m.state, m.input);
  } catch (err) {
    return fail({ run: m.run }, 'start', err);
  }
  end();
  const r = (cur = { run: m.run, v, stepper, playing: !!m.play, over: false });
  post({ type: 'started', run: r.run, info: stepper.info?.() ?? null });
  if (m.step) return singleStep(r);
  postData(r);
  if (r.playing) play(r);
}

function singleStep(r) {
  const more = r.stepper.advance ? r.stepper.advance() : r.stepper.step(0);
  if (!more) r.over = true;
  postData(r);
}

function update(r, state) {
  if (!r.stepper.update?.(state)) return fail(r, 'run', new Error('the state is not of this run: start again'));
  if (r.playing) return; // (the next slice redoes what is stale)
  // paused or done: what the stepper redoes in place (a generation, an inspection), now; a paused run does not train
  if (r.over) for (let k = 0; k < REDO_UNITS && r.stepper.step(0); k++);
  postData(r);
}

// One message at a time, in order (a start awaits the view module and the wasm: a step posted after it waits).
let queue = Promise.resolve();
self.onmessage = ({ data: m }) => { queue = queue.then(() => handle(m)); };

async function handle(m) {
  if (m.type === 'start') return start(m);
  const r = cur;
  if (m.type === 'call') {
    const call = r?.v.worker?.calls?.[m.name];
    try {
      if (!call || !r.stepper) throw new Error(`nothing to ${m.name}: no run`);
      const value = call(r.stepper, m.args);
      post({ type: 'reply', id: m.id, value }, Object.values(value ?? {}).filter(ArrayBuffer.isView).map((a) => a.buffer));
    } catch (err) {
      fail(r, 'call', err, m.id);
    }
    return;
  }
  if (m.type === 'dispose') return end();
  if (!r?.stepper) return;
  try {
    if (m.type === 'play' && !r.over) {
      r.playing = true;
      postData(r);
      play(r);
    } else if (m.type === 'pause') {
      r.playing = false;
      postData(r);
    } else if (m.type === 'step' && !r.playing && !r.over) singleStep(r);
    else if (m.type === 'update') update(r, m.state);
  } catch (err) {
    fail(r, 'run', err);
  }
}
