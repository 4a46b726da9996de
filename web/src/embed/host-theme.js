// theme="auto" for a widget: light or dark as the host page is behind it.
// The page decides, not the reader's OS: a light blog stays light for a
// reader with a dark OS, a dark docs theme (MkDocs Material's slate) gets a
// dark widget. Read, in order:
//  1. the background the page paints behind the element: its ancestors'
//     background colours, from the element outwards to the first opaque one,
//     composited (half-transparent layers included);
//  2. where nothing opaque is painted, the page's canvas: dark when its
//     color-scheme is dark only, the reader's OS setting when it allows both
//     (`light dark`: the browser paints the canvas by the OS), else white;
// and then light or dark by the luminance of that colour (dark where white
// text has more contrast than black). The OS setting is only the fallback.
// It follows changes: an ancestor's attributes (a theme toggle sets a class
// or data-md-color-scheme on body), the OS setting, and the end of a
// transition (a page that fades its background to the new colour).
import { useLayoutEffect, useState } from 'preact/hooks';

const DARK_OS = '(prefers-color-scheme: dark)';
const osDark = () => matchMedia(DARK_OS).matches;

let probe = null;
/** [r, g, b, a] (0..1) of a computed CSS colour, any syntax the browser knows (a 1-pixel canvas converts it); null for transparent. */
function rgba(color) {
  if (color === 'rgba(0, 0, 0, 0)') return null;
  probe ??= document.createElement('canvas').getContext('2d', { willReadFrequently: true });
  if (!probe) return null;
  probe.clearRect(0, 0, 1, 1);
  probe.fillStyle = color;
  probe.fillRect(0, 0, 1, 1);
  const c = [...probe.getImageData(0, 0, 1, 1).data].map((v) => v / 255);
  return c[3] > 0 ? c : null;
}

/** The element's parent, across a shadow root's boundary (a widget inside another component). */
const parentOf = (n) => n.parentElement ?? n.getRootNode().host;

/**
 * 'dark' | 'light': the theme that reads on the colour painted behind `el`,
 * composited front to back from the element outwards until a layer is
 * opaque, then the page's canvas (dark where its color-scheme is dark only,
 * or allows dark and the OS is dark). Dark where the WCAG relative luminance
 * is below 0.179: white text has the more contrast there.
 */
export function themeBehind(el) {
  const c = [0, 0, 0];
  let t = 1; // what still shows through
  for (let n = el; n && t > 0; n = parentOf(n)) {
    const p = rgba(getComputedStyle(n).backgroundColor);
    if (!p) continue;
    for (let i = 0; i < 3; i++) c[i] += t * p[3] * p[i];
    t *= 1 - p[3];
  }
  const scheme = `${getComputedStyle(document.documentElement).colorScheme} ${document.querySelector('meta[name="color-scheme"]')?.content}`;
  const canvas = /dark/.test(scheme) && (!/light/.test(scheme) || osDark()) ? 0.07 : 1;
  const [r, g, b] = c.map((v) => {
    v += t * canvas;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b < 0.179 ? 'dark' : 'light';
}

/**
 * 'light' | 'dark' for a widget's theme setting ('auto' | 'light' | 'dark'),
 * `ref` on an element of the widget (inside its shadow root): auto follows
 * the page behind the widget element, and its changes.
 */
export function useHostTheme(setting, ref) {
  const [auto, setAuto] = useState(() => (osDark() ? 'dark' : 'light'));
  useLayoutEffect(() => {
    const inner = ref.current;
    if (setting !== 'auto' || !inner) return undefined;
    const el = inner.getRootNode().host ?? inner;
    const update = () => { if (el.isConnected) setAuto(themeBehind(el)); };
    update();
    const mo = new MutationObserver(update);
    for (let n = el; n; n = parentOf(n)) mo.observe(n, { attributes: true });
    const os = matchMedia(DARK_OS);
    os.addEventListener('change', update);
    document.addEventListener('transitionend', update, true);
    return () => {
      mo.disconnect();
      os.removeEventListener('change', update);
      document.removeEventListener('transitionend', update, true);
    };
  }, [setting]);
  return setting === 'auto' ? auto : setting;
}
