// The playground's address: which view is shown and that view's state, as
// a link (#view=normalizers&kernels=softmax,sparsemax&temperature=0.5). The
// keys and their reading are the views' schemas (wasm/state/schema.js); this
// file only splits the hash into the view and its entries, and reads links
// of the earlier, one-big-state format (#panel=...&dispersion.margin=...).
import { hashEntries } from 'softscope/state';

// Earlier links: panel=<tab>, view keys prefixed by the tab ("dispersion.",
// "sampling.", "quant.", "optim.", "attn."), normalizer keys unprefixed.
const LEGACY_PREFIX = { dispersion: 'dispersion.', sampling: 'sampling.', quantization: 'quant.', optimizers: 'optim.', attention: 'attn.' };
const LEGACY_RENAME = {
  normalizers: { normalizers: 'kernels' },
  dispersion: { normalizers: 'kernels' },
  attention: { norms: 'normalizers' },
  optimizers: { list: 'kernels' },
};

/** { view, entries: [[key, value], ...] } of a location hash (view null: the default). */
export function readHash(hash, viewIds) {
  const all = hashEntries(hash);
  const get = (k) => all.find(([key]) => key === k)?.[1];
  const v = get('view');
  if (v !== undefined) return { view: viewIds.includes(v) ? v : null, entries: all.filter(([k]) => k !== 'view'), unknownView: viewIds.includes(v) ? null : v };
  const panel = get('panel');
  if (panel !== undefined && viewIds.includes(panel)) {
    const pre = LEGACY_PREFIX[panel];
    const rename = LEGACY_RENAME[panel] ?? {};
    const entries = [];
    for (const [k, val] of all) {
      if (k === 'panel') continue;
      let key = k;
      if (pre) {
        if (k.startsWith(pre)) key = k.slice(pre.length);
        else if (Object.values(LEGACY_PREFIX).some((p) => k.startsWith(p)) || ['preset', 'seed', 'n', 'logits', 'normalizers'].includes(k)) continue;
      } else if (Object.values(LEGACY_PREFIX).some((p) => k.startsWith(p))) continue;
      entries.push([rename[key] ?? key, val]);
    }
    return { view: panel, entries, legacy: true };
  }
  return { view: null, entries: all };
}

/**
 * Writes hashes to the address bar: replace() for edits (at most once per
 * `ms`, the last one always lands; no history entry per slider step),
 * push() for a change of view (so Back returns to the previous view).
 */
export function createHistory(ms = 200, win = globalThis.window) {
  let timer = null, pending = null, last = 0;
  const flush = () => {
    timer = null;
    last = Date.now();
    if (pending == null) return;
    const hash = '#' + pending;
    pending = null;
    if (win.location.hash !== hash) win.history.replaceState(null, '', hash);
  };
  return {
    replace(hash) {
      pending = hash;
      if (timer) return;
      timer = setTimeout(flush, Math.max(0, ms - (Date.now() - last)));
    },
    push(hash) {
      if (timer) { clearTimeout(timer); timer = null; }
      pending = null;
      if (win.location.hash !== '#' + hash) win.history.pushState(null, '', '#' + hash);
    },
    flush() {
      if (timer) clearTimeout(timer);
      flush();
    },
    /** Drops the pending edit: the address changed under it (a pasted link, Back), which it must not overwrite. */
    cancel() {
      if (timer) clearTimeout(timer);
      timer = null;
      pending = null;
    },
  };
}
