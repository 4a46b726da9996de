// One softscope instance per page: every widget awaits the same promise, so
// several widgets share one download, one compile and one wasm memory. The
// build is picked by the engine: SIMD128 where it validates, else scalar.
import { createSoftscope } from 'softscope';

let shared = null;

/** The page's softscope (null when the engine has no WebAssembly). */
export function pageSoftscope() {
  if (typeof WebAssembly !== 'object' || typeof WebAssembly.instantiate !== 'function') return Promise.resolve(null);
  shared ??= createSoftscope({ impl: 'auto' });
  return shared;
}
