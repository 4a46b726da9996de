// The wasm builds the Performance view times, each loaded as its own
// softscope instance (its own module, memory and heap): relaxed SIMD,
// SIMD128 and scalar. A build the engine cannot compile (relaxed SIMD where
// the engine does not validate it, SIMD128 in an engine without SIMD) is
// reported unavailable with the reason, and the others still run.
import { createSoftscope } from '../../api/index.js';

// createSoftscope's options per build (the API loads each build by name and,
// in Node 20, turns on V8's relaxed-SIMD flag before compiling that one).
const OPTIONS = {
  relaxed: { impl: 'relaxed' },
  simd: { impl: 'simd' },
  scalar: { impl: 'scalar' },
};
export const WASM_BUILDS = Object.keys(OPTIONS);

/** { instances: { relaxed, simd, scalar } (null: not loaded), unavailable: { build: reason } } for the wasm builds in `wanted`. */
export async function loadBuilds(wanted) {
  const instances = {}, unavailable = {};
  for (const id of WASM_BUILDS) {
    instances[id] = null;
    if (!wanted.includes(id)) continue;
    try {
      instances[id] = await createSoftscope(OPTIONS[id]);
    } catch (e) {
      // the API's reason, without its 'createSoftscope: ' prefix
      unavailable[id] = String(e.message ?? e).replace(/^[^:]*: /, '');
    }
  }
  return { instances, unavailable };
}
