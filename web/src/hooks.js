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
