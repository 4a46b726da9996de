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

/**
 * useRunner(v, ss, state, { worker, budgetMs, input, inputKey, onMessage, wasm }) drives view v's work for state.
 * worker false (default): v.start(ss, state) on the main thread, a slice of about budgetMs per animation frame,
 * started at once and again (playing) when the run key changes. worker true: v's stepper (or v.measure) in the Web
 * Worker, started by restart(); the wasm build is ss's (wasm: its URL, when the worker must not find it next to its
 * own file). input: what start takes beside the state (language: { text }); inputKey: a string that changes with it
 * (a part of the run key). onMessage(m): the worker's 'started' (with the stepper's info), 'reply' (to call()) and its
 * errors.
 * Returns { data, status ('idle' | 'starting' | 'running' | 'paused' | 'done' | 'error'), error, done, run (counts the
 * starts), progress (a measure's { done, total, kernel }), info, frames, computeMs, wallMs, stepper (main thread),
 * playing, hasWorker, play(on), step(), restart({ play, step, via, input, transfer }) -> run, reset(),
 * call(name, args), adopt(), redraw() }.
 */
export function useRunner(v, ss, state, { worker = false, budgetMs = 10, input, inputKey = '', onMessage, wasm } = {}) {
  const cur = useRef(null);
  const w = useRef(null);
  const onMsg = useRef();
  onMsg.current = onMessage;
  const [, setTick] = useState(0);
  const redraw = () => setTick((t) => t + 1);
  const key = `${v.schema ? runKey(v.schema, state) : ''}|${inputKey}`;
  const fresh = (status, playing, run = (cur.current?.run ?? 0) + 1) => ({ ss, state, key, run, frames: 0, computeMs: 0,
    t0: performance.now(), playing, status, over: false, error: null, stepper: null, data: null });

  // ---- the worker ----
  const stopWorker = () => {
    w.current?.terminate();
    w.current = null;
  };
  const fail = (r, error) => { Object.assign(r, { status: 'error', error, playing: false }); redraw(); };
  function receive(m) {
    const r = cur.current;
    if (m.type === 'reply' || m.about === 'call') return onMsg.current?.(m);
    if (m.run !== r.run) return;
    if (m.type === 'data') {
      if (m.data !== null) r.data = m.data;
      r.progress = m.progress ?? r.progress;
      r.status = m.status;
      r.playing = m.status === 'running';
      if (m.status === 'done') r.wallMs ??= performance.now() - r.t0;
    } else {
      if (m.type === 'started') r.info = m.info;
      // a start of another kind that failed leaves the run before it (the worker kept it)
      else if (m.about === 'start' && r.prev) cur.current = r.prev;
      else fail(r, m.message);
      r.prev = null;
      onMsg.current?.(m);
    }
    redraw();
  }
  const post = (m, transfer) => {
    if (!w.current) {
      const x = (w.current = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }));
      x.onmessage = ({ data }) => { if (w.current === x) receive(data); };
      x.onerror = (e) => { if (w.current === x) { stopWorker(); fail(cur.current, e.message || 'the worker failed to start'); } };
    }
    w.current.postMessage(m, transfer);
  };

  // ---- the main thread ----
  const begin = (playing) => {
    cur.current?.stepper?.stop?.();
    const r = (cur.current = fresh(null, playing));
    try {
      r.stepper = v.start(ss, state, input);
    } catch (e) {
      r.error = e.message;
    }
    return r;
  };

  /** A new run (its number): main thread, the stepper again; worker, { play, step, via (the view's worker.start), input }. */
  const restart = ({ play: on = true, step: one = false, via, input: given = input, transfer = [] } = {}) => {
    if (!worker) return begin(on) && redraw();
    const r = fresh('starting', on);
    r.prev = via && cur.current; // (the worker ends the run only once one of another kind has started)
    cur.current = r;
    try {
      post({ type: 'start', run: r.run, view: v.id, state, input: given, play: on, step: one, via, build: ss?.build, wasm }, transfer);
    } catch (e) {
      fail(r, `no Web Worker here: ${e.message}`);
    }
    redraw();
    return r.run;
  };
  /** The run ends (its worker too); the data goes. */
  const reset = () => {
    stopWorker();
    cur.current?.stepper?.stop?.();
    cur.current = fresh('idle', false, cur.current?.run);
    redraw();
  };

  let r = cur.current;
  if (!worker) {
    if (!r || r.ss !== ss) r = begin(true);
    else if (r.state !== state) {
      if (r.key === key && r.stepper && !r.error && r.stepper.update?.(state)) r.state = state;
      else r = begin(true);
    }
  } else if (!r) r = cur.current = fresh('idle', false, 0);
  else if (r.state !== state) {
    if (r.adopt) r.key = key;
    r.adopt = false;
    if (r.key === key || r.status === 'idle') {
      Object.assign(r, { state, key });
      if (r.status !== 'idle' && w.current) post({ type: 'update', state });
    } else {
      stopWorker();
      r = cur.current = fresh('idle', false, r.run);
    }
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

  const live = r.status === 'paused' || r.status === 'running';
  const play = (on) => {
    if (worker) { if (live) post({ type: on ? 'play' : 'pause' }); return; }
    r.playing = on && !r.over && !r.error;
    redraw();
  };
  let data = r.data;
  if (!worker && stepper) {
    try {
      data = stepper.data();
    } catch (e) {
      r.error ??= e.message;
    }
  }
  const status = worker ? r.status : r.error ? 'error' : r.over ? 'done' : r.playing ? 'running' : 'paused';
  return { data, status, error: r.error, done: status === 'done', run: r.run, progress: r.progress, info: r.info, frames: r.frames,
    computeMs: r.computeMs, wallMs: r.wallMs, stepper, playing: r.playing, hasWorker: !!w.current, play, restart, reset, redraw,
    /** Paused: one step (the stepper's advance(), else one unit). */
    step: () => r.status === 'paused' && post({ type: 'step' }),
    /** A command of the view's worker hook on the run (language: 'save'); its reply (or error) goes to onMessage. */
    call: (name, args) => post({ type: 'call', id: name, name, args }),
    /** The next state is this run's, whatever its run key (a model file opened sets the state to the model's shape). */
    adopt: () => { r.adopt = true; },
  };
}
