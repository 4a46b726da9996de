// The one driver of a view's long work: the stepper (wasm/views/stepper.js)
// a slice per animation frame on the main thread, or the view's stepper (or
// its measure) in the playground's Web Worker (runner/worker.js). Either way
// one rule decides whether a new state is the same run: its run key
// (state/schema.js runKey, the state without its display fields). The same
// key: the state goes to the running work in place (the stepper's update());
// another: the run ends, and starts over playing (main thread) or waits for
// Train / Run (a worker run: status 'idle', no data).
import { useEffect, useRef, useState } from 'preact/hooks';
import { runKey } from 'softscope/state';

const frame = (f) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(f) : setTimeout(f, 0));
const cancelFrame = (id) => (typeof cancelAnimationFrame === 'function' ? cancelAnimationFrame(id) : clearTimeout(id));
// Vite bundles the worker and its wasm next to the script (playground and embed bundle alike).
const newWorker = () => new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });

const keyOf = (v, state, inputKey) => `${v.schema ? runKey(v.schema, state) : ''}|${inputKey}`;

/**
 * useRunner(v, ss, state, { worker, budgetMs, input, inputKey, onMessage }) drives view v's work for state.
 * worker false (default): v.start(ss, state) on the main thread, a slice of about budgetMs per animation frame,
 * started at once and again (playing) when the run key changes. worker true: v's stepper (or v.measure) in the Web
 * Worker, started by restart(); the wasm build is ss's. input: what start takes beside the state (language: { text }),
 * inputKey: a string that changes with it (part of the run key). onMessage(m): the worker's other messages
 * ('started' with the stepper's info).
 * Returns { data, status ('idle' | 'starting' | 'running' | 'paused' | 'done' | 'error'), error, done, run (counts the
 * starts), progress (a measure's { done, total, kernel }), info, frames, computeMs, wallMs, stepper (main thread),
 * playing, play(on), step(), restart({ play, via, input }), reset(), call(name, args) -> Promise, adopt(), redraw() }.
 */
export function useRunner(v, ss, state, { worker = false, budgetMs = 10, input, inputKey = '', onMessage } = {}) {
  const cur = useRef(null);
  const w = useRef(null);
  const calls = useRef(new Map());
  const onMsg = useRef(onMessage);
  onMsg.current = onMessage;
  const [, setTick] = useState(0);
  const redraw = () => setTick((t) => t + 1);
  const key = keyOf(v, state, inputKey);

  const fresh = (status, playing) => ({ ss, state, key, run: (cur.current?.run ?? 0) + 1, frames: 0, computeMs: 0, wallMs: undefined,
    t0: performance.now(), playing, status, error: null, stepper: null, data: null, progress: null, info: null, adopt: false });

  // ---- the worker ----
  const stopWorker = () => {
    w.current?.terminate();
    w.current = null;
    for (const p of calls.current.values()) p.reject(new Error('the run ended'));
    calls.current.clear();
  };
  const fail = (r, error) => { Object.assign(r, { status: 'error', error, playing: false }); redraw(); };
  function receive(m) {
    const r = cur.current;
    if (m.type === 'reply' || (m.type === 'error' && m.about === 'call')) {
      const p = calls.current.get(m.id);
      calls.current.delete(m.id);
      if (m.type === 'reply') p?.resolve(m.value);
      else p?.reject(new Error(m.message));
      return;
    }
    if (m.type === 'error' && m.about === 'start' && r?.prev && m.run === r.run && w.current) {
      // a start that failed leaves the run before it (the worker kept it)
      cur.current = r.prev;
      onMsg.current?.(m);
      redraw();
      return;
    }
    if (!r || m.run !== r.run) return;
    if (m.type === 'data') {
      if (m.data !== null) r.data = m.data;
      r.progress = m.progress ?? r.progress;
      r.status = m.status;
      r.playing = m.status === 'running';
      if (m.status === 'done' && r.wallMs === undefined) r.wallMs = performance.now() - r.t0;
      redraw();
    } else if (m.type === 'started') {
      r.info = m.info;
      r.prev = null;
      onMsg.current?.(m);
      redraw();
    } else if (m.type === 'error') {
      fail(r, m.message);
      onMsg.current?.(m);
    }
  }
  const post = (m, transfer) => {
    if (!w.current) {
      const x = newWorker();
      x.onmessage = ({ data }) => { if (w.current === x) receive(data); };
      x.onerror = (e) => { if (w.current === x) { stopWorker(); if (cur.current) fail(cur.current, e.message || 'the worker failed to start'); } };
      w.current = x;
    }
    w.current.postMessage(m, transfer ?? []);
  };

  // ---- the main thread ----
  const begin = (playing) => {
    cur.current?.stepper?.stop?.();
    const r = fresh(playing ? 'running' : 'paused', playing);
    try {
      r.stepper = v.start(ss, state, input);
    } catch (e) {
      Object.assign(r, { error: e.message, status: 'error', playing: false });
    }
    cur.current = r;
    return r;
  };

  /** A new run: main thread, the stepper again; worker, { play, via (the view's worker.start), input }. */
  const restart = ({ play: on = true, step: one = false, via, input: given, transfer } = {}) => {
    if (!worker) { begin(on); redraw(); return cur.current.run; }
    const prev = via ? cur.current : null; // (a start of another kind that fails keeps the run before it: the worker did)
    const r = fresh('starting', on);
    r.prev = prev;
    cur.current = r;
    try {
      post({ type: 'start', run: r.run, view: v.id, state, input: given ?? input, play: on, step: one, via, build: ss?.build }, transfer);
    } catch (e) {
      fail(r, `no Web Worker here: ${e.message}`);
    }
    redraw();
    return r.run;
  };
  /** The run ends (its worker too); the data goes. */
  const reset = () => {
    if (worker) stopWorker();
    else cur.current?.stepper?.stop?.();
    cur.current = { ...fresh('idle', false), run: cur.current?.run ?? 0 };
    redraw();
  };

  let r = cur.current;
  if (!worker) {
    if (!r || r.ss !== ss) r = begin(true);
    else if (r.state !== state) {
      if (r.key === key && r.stepper && !r.error && r.stepper.update?.(state)) r.state = state;
      else r = begin(true);
    }
  } else if (!r) r = cur.current = { ...fresh('idle', false), run: 0 };
  else if (r.state !== state) {
    if (r.adopt) { r.key = key; r.adopt = false; }
    if (r.key === key) {
      r.state = state;
      if (r.status !== 'idle' && w.current) post({ type: 'update', state });
    } else if (r.status !== 'idle') {
      stopWorker();
      r = cur.current = { ...fresh('idle', false), run: r.run };
    } else Object.assign(r, { state, key });
  }

  useEffect(() => () => { cur.current?.stepper?.stop?.(); stopWorker(); }, []);
  const { stepper, playing } = r;
  useEffect(() => {
    if (worker || !playing || !stepper) return undefined;
    let id = null;
    const loop = () => {
      id = null;
      if (cur.current !== r || !r.playing) return;
      const t0 = performance.now();
      let more;
      try {
        more = stepper.step(budgetMs);
      } catch (e) {
        r.error = e.message;
        more = false;
      }
      r.computeMs += performance.now() - t0;
      r.frames++;
      if (more) id = frame(loop);
      else {
        r.over = true;
        r.playing = false;
        r.wallMs = performance.now() - r.t0;
      }
      redraw();
    };
    id = frame(loop);
    return () => { if (id !== null) cancelFrame(id); };
  }, [r, playing]);

  const play = (on) => {
    if (worker) {
      if (r.status === 'paused' || r.status === 'running') post({ type: on ? 'play' : 'pause' });
      return;
    }
    r.playing = on && !r.over && !r.error;
    redraw();
  };
  /** Paused: one step (the stepper's advance(), else one unit). */
  const step = () => { if (worker && r.status === 'paused') post({ type: 'step' }); };
  let seq = 0;
  const call = (name, args) => new Promise((resolve, reject) => {
    const id = `${r.run}:${++seq}:${name}`;
    calls.current.set(id, { resolve, reject });
    post({ type: 'call', id, name, args });
  });
  /** The next state is this run's, whatever its run key (a model file opened sets the state to the model's shape). */
  const adopt = () => { r.adopt = true; redraw(); };

  let data = r.data;
  if (!worker && stepper) {
    try {
      data = stepper.data();
    } catch (e) {
      r.error ??= e.message;
      r.status = 'error';
    }
  }
  const status = worker ? r.status : r.error ? 'error' : r.over ? 'done' : r.playing ? 'running' : 'paused';
  return { data, status, error: r.error, done: status === 'done', run: r.run, progress: r.progress, info: r.info, frames: r.frames,
    computeMs: r.computeMs, wallMs: r.wallMs, stepper, playing: r.playing, hasWorker: !!w.current,
    play, step, restart, reset, call, adopt, redraw };
}
