// tfjs-core's gradients, for the baby GPT's TF.js peer (tfjs-babygpt.js) in
// Node. The package's Node entry (dist/tf-core.node.js, what
// `import '@tensorflow/tfjs-core'` loads) has the ops but registers no
// gradient (the full @tensorflow/tfjs does, and the bench has only core and
// the wasm backend): tf.variableGrads then fails with "gradient function not
// found". Its ES-module tree has dist/register_all_gradients.js, whose
// imports name files without the .js extension (written for bundlers), so
// Node cannot load it as it is: a resolve hook (node:module register) adds
// the extension to the relative imports inside tfjs-core's dist/ alone.
// The gradients land in tfjs-core's global registry (globalThis._tfGlobals,
// shared by both copies of the package), next to the engine the bench uses.
import { register } from 'node:module';

const HOOKS = `
export async function resolve(spec, ctx, next) {
  try {
    return await next(spec, ctx);
  } catch (e) {
    if (!ctx.parentURL?.includes('/@tensorflow/tfjs-core/dist/') || !spec.startsWith('.')) throw e;
    try { return await next(spec + '.js', ctx); } catch { return next(spec + '/index.js', ctx); }
  }
}`;

let done = null;
/** Registers every gradient of tfjs-core (once). */
export function registerTfjsGradients() {
  done ??= (async () => {
    register(`data:text/javascript,${encodeURIComponent(HOOKS)}`, import.meta.url);
    await import('@tensorflow/tfjs-core/dist/register_all_gradients.js');
  })();
  return done;
}
