// The whole playground state, serialized into the URL hash (like the
// TensorFlow Playground) so that a link reproduces exactly what is on screen:
//
//   #panel=normalizers&preset=custom&seed=1&logits=1.2,-0.5,0&normalizers=softmax,softmax_temperature&temperature=0.7
//
// Keys: panel, preset (a preset name or "custom" once a bar was dragged),
// seed, n (only used when logits are absent: regenerate the preset), logits
// (comma separated numbers, the source of truth), normalizers (comma
// separated registry names). Every other key is a kernel parameter, by its
// registry name (names are the same in C, JS, CLI and here); one value is
// shared by every chosen kernel that has a parameter of that name.
//
// parseHash never throws: anything malformed falls back to the default for
// that field. Kernel names and parameter ranges are checked later against the
// registry (the parser does not know it).
import { makePreset, PRESET_NAMES, N_MIN, N_MAX, LOGIT_LIMIT } from '../presets.js';

export const PANELS = ['normalizers'];
const RESERVED = new Set(['panel', 'preset', 'seed', 'n', 'logits', 'normalizers']);
const NAME_RE = /^[a-z][a-z0-9_]*$/;

export const DEFAULT_PRESET = 'planted_peak';
export const DEFAULT_N = 16;
export const DEFAULT_SEED = 1;
export const DEFAULT_NORMALIZERS = ['softmax', 'softmax_temperature'];

export function defaultState() {
  return {
    panel: PANELS[0],
    preset: DEFAULT_PRESET,
    seed: DEFAULT_SEED,
    logits: makePreset(DEFAULT_PRESET, DEFAULT_N, DEFAULT_SEED),
    normalizers: [...DEFAULT_NORMALIZERS],
    params: {},
  };
}

function parseLogits(s) {
  if (s == null || s === '') return null;
  const parts = s.split(',');
  if (parts.length < N_MIN || parts.length > N_MAX) return null;
  const xs = parts.map((p) => (p.trim() === '' ? NaN : Number(p)));
  // The editor works in [-LOGIT_LIMIT, LOGIT_LIMIT]; anything else (NaN, Inf,
  // huge values) means the link was not made by the playground.
  if (!xs.every((v) => Number.isFinite(v) && Math.abs(v) <= LOGIT_LIMIT)) return null;
  return xs.map((v) => v + 0);
}

function parseInteger(s, lo, hi) {
  if (s == null || !/^-?\d+$/.test(s)) return null;
  const v = Number(s);
  return v >= lo && v <= hi ? v : null;
}

/** State from a location.hash ("#a=1&b=2" or "a=1&b=2"); never throws. */
export function parseHash(hash) {
  const state = defaultState();
  let q;
  try {
    q = new URLSearchParams(String(hash ?? '').replace(/^#/, ''));
  } catch {
    return state;
  }
  const panel = q.get('panel');
  if (PANELS.includes(panel)) state.panel = panel;

  const seed = parseInteger(q.get('seed'), 0, 2 ** 31 - 1);
  if (seed != null) state.seed = seed;

  const preset = q.get('preset');
  if (preset === 'custom' || PRESET_NAMES.includes(preset)) state.preset = preset;

  const logits = parseLogits(q.get('logits'));
  if (logits) {
    state.logits = logits;
  } else {
    // No usable logits: regenerate from the preset (custom has nothing to regenerate).
    if (state.preset === 'custom') state.preset = DEFAULT_PRESET;
    const n = parseInteger(q.get('n'), N_MIN, N_MAX) ?? DEFAULT_N;
    state.logits = makePreset(state.preset, n, state.seed);
  }

  const norms = q.get('normalizers');
  if (norms != null) {
    const names = [...new Set(norms.split(',').filter((s) => NAME_RE.test(s)))];
    state.normalizers = names;
  }

  for (const [k, v] of q) {
    if (RESERVED.has(k) || !NAME_RE.test(k) || v.trim() === '') continue;
    const num = Number(v);
    if (Number.isFinite(num)) state.params[k] = num;
  }
  return state;
}

/** The hash string (without "#") for a state. */
export function serializeState(state) {
  const q = new URLSearchParams();
  q.set('panel', state.panel);
  q.set('preset', state.preset);
  q.set('seed', String(state.seed));
  q.set('logits', state.logits.map((v) => String(v)).join(','));
  q.set('normalizers', state.normalizers.join(','));
  for (const k of Object.keys(state.params).sort()) {
    if (!RESERVED.has(k) && NAME_RE.test(k) && Number.isFinite(state.params[k])) q.set(k, String(state.params[k]));
  }
  // Commas are legal in a fragment; leaving them unescaped keeps links readable.
  return q.toString().replace(/%2C/g, ',');
}

/**
 * Writes the state to location.hash with history.replaceState (no history
 * entry per drag step), at most once per `ms`; the last call always lands.
 */
export function createHashWriter(ms = 200, win = globalThis.window) {
  let timer = null;
  let pending = null;
  let last = 0;
  const flush = () => {
    timer = null;
    last = Date.now();
    if (pending == null) return;
    const hash = '#' + pending;
    pending = null;
    if (win.location.hash !== hash) win.history.replaceState(null, '', hash);
  };
  return {
    write(state) {
      pending = serializeState(state);
      if (timer) return;
      const wait = Math.max(0, ms - (Date.now() - last));
      timer = setTimeout(flush, wait);
    },
    flush() {
      if (timer) clearTimeout(timer);
      flush();
    },
  };
}
