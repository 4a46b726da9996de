// A widget's model file (model="model.ssm": what `softscope train language
// --save` and the Language tab's Save weights write): fetched (a relative URL
// resolves against the page) as bytes, at most MAX_BYTES (LANGUAGE_LIMITS.fileBytes),
// for the View to open in its Web Worker (loadLanguageModel checks every
// field there; its Error, naming `file`, comes back as a notice too).
// Whatever is wrong here becomes a notice under the key `model`, never an
// exception: the widget then draws as without a file. Loaded by the element
// only when a widget has the attribute.
// LANGUAGE_LIMITS.fileBytes (analysis/language.js; tests/js/ui-language-results.test.js holds them equal), written
// out: importing it would tie this chunk to the Language view's
export const MAX_BYTES = 64 << 20;
const MB = (b) => `${Math.round(b / (1 << 20))} MB`;

const notice = (url, reason) => ({ notices: [{ key: 'model', value: url, reason }] });

/** { bytes (Uint8Array), url } of a model file for the loaded view v, or { notices } when it cannot be opened. */
export async function loadModelFile(v, url) {
  if (!v.opensModel) return notice(url, `view ${v.id} does not open a model file (the language view does)`);
  try {
    const res = await fetch(new URL(url, document.baseURI));
    if (!res.ok) return notice(url, `could not be fetched: HTTP ${res.status}`);
    if (Number(res.headers.get('content-length')) > MAX_BYTES) return notice(url, `larger than ${MB(MAX_BYTES)}`);
    const buf = await res.arrayBuffer();
    if (buf.byteLength > MAX_BYTES) return notice(url, `larger than ${MB(MAX_BYTES)}`);
    return { bytes: new Uint8Array(buf), url, notices: [] };
  } catch (e) {
    return notice(url, `could not be fetched: ${e?.message ?? e}`);
  }
}
