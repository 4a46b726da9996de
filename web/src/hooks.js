// Small hooks shared by the views.
import { useEffect, useRef, useState } from 'preact/hooks';

/** [ref, width]: the element's content width, following resizes (ResizeObserver). */
export function useWidth(fallback = 720) {
  const ref = useRef(null);
  const [w, setW] = useState(fallback);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return undefined;
    const ro = new ResizeObserver(([e]) => {
      const cw = Math.floor(e.contentRect.width);
      if (cw > 0) setW(cw);
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return [ref, w];
}

/** 'light' | 'dark' for a theme setting 'auto' | 'light' | 'dark' (auto follows prefers-color-scheme). */
export function useTheme(setting) {
  const q = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;
  const [dark, setDark] = useState(!!q?.matches);
  useEffect(() => {
    if (!q) return undefined;
    const on = (e) => setDark(e.matches);
    q.addEventListener?.('change', on);
    return () => q.removeEventListener?.('change', on);
  }, []);
  return setting === 'auto' ? (dark ? 'dark' : 'light') : setting;
}

/** value, once it has stayed the same for `ms` (a live region announces the settled numbers, not every drag step). */
export function useSettled(value, ms = 700) {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

const frame = (f) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(f) : setTimeout(f, 0));
const cancelFrame = (id) => (typeof cancelAnimationFrame === 'function' ? cancelAnimationFrame(id) : clearTimeout(id));

/**
 * Drives a progressive view (one with start(ss, state), wasm/views/stepper.js)
 * a slice of about budgetMs per animation frame. Every new state goes to the
 * running stepper's update(); when it has none or says no, the work starts
 * over (and plays). Returns { data (the stepper's data() after the last
 * frame), status ('running' | 'paused' | 'done' | 'error'), error (its
 * message), done (no work left), run (counts the starts), frames,
 * computeMs, wallMs, stepper, playing, play(on), restart({ play }), redraw() }.
 * A pause lands before the next frame (not after the re-render).
 */
export function useStepper(v, ss, state, { budgetMs = 10 } = {}) {
  const cur = useRef(null);
  const [, setTick] = useState(0);
  const redraw = () => setTick((t) => t + 1);
  const begin = (playing) => {
    cur.current?.stepper?.stop?.();
    const r = { ss, state, run: (cur.current?.run ?? 0) + 1, frames: 0, computeMs: 0, wallMs: undefined, t0: performance.now(),
      playing, done: false, error: null, stepper: null };
    try {
      r.stepper = v.start(ss, state);
    } catch (e) {
      r.error = e.message;
      r.done = true;
      r.playing = false;
    }
    cur.current = r;
    return r;
  };
  let r = cur.current;
  if (!r || r.ss !== ss) r = begin(true);
  else if (r.state !== state) {
    if (r.stepper && !r.error && r.stepper.update?.(state)) r.state = state;
    else r = begin(true);
  }
  useEffect(() => () => cur.current?.stepper?.stop?.(), []);
  const { stepper, playing, run } = r;
  useEffect(() => {
    if (!playing || !stepper) return undefined;
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
        r.done = true;
        r.playing = false;
        r.wallMs = performance.now() - r.t0;
      }
      redraw();
    };
    id = frame(loop);
    return () => { if (id !== null) cancelFrame(id); };
  }, [r, playing]);
  const play = (on) => {
    r.playing = on && !r.done && !r.error;
    redraw();
  };
  const restart = ({ play: on = true } = {}) => {
    begin(on);
    redraw();
  };
  let data = null;
  if (stepper) {
    try {
      data = stepper.data();
    } catch (e) {
      r.error ??= e.message;
    }
  }
  const status = r.error ? 'error' : r.done ? 'done' : r.playing ? 'running' : 'paused';
  return { data, status, error: r.error, done: r.done, run, frames: r.frames, computeMs: r.computeMs, wallMs: r.wallMs,
    stepper, playing: r.playing, play, restart, redraw };
}
