// The playground's remembered settings (the theme) in localStorage, where the
// page may use it. A cross-site iframe with third-party storage blocked, a
// sandboxed iframe (an opaque origin) or a browser with storage turned off
// throws on every access to localStorage: the setting is then not remembered,
// and the page works all the same.

/** The stored value of `key`, or null (nothing stored, or no storage here). */
export function readSetting(key) {
  try {
    return globalThis.localStorage?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

/** Stores `value` under `key` where the page may; false where it may not. */
export function writeSetting(key, value) {
  try {
    globalThis.localStorage?.setItem(key, value);
    return true;
  } catch {
    return false;
  }
}
