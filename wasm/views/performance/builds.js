// The wasm builds the Performance view times, each loaded as its own
// softscope instance (its own module, memory and heap): relaxed SIMD,
// SIMD128 and scalar. A build the engine cannot compile (relaxed SIMD where
// the engine does not validate it, SIMD128 in an engine without SIMD) is
// reported unavailable with the reason, and the others still run.
import { createSoftscope, detectSimd } from '../../api/index.js';

// The relaxed build, by URL, as the API loads it today. A static
// `new URL(..., import.meta.url)` so that Vite ships the file next to the
// worker (and the embed bundle), like the API's own two builds.
export const RELAXED_URL = new URL('../../dist/softscope-relaxed.wasm', import.meta.url);

// createSoftscope's options per build. (When the API takes impl 'relaxed',
// its line becomes `relaxed: { impl: 'relaxed' }`.)
const OPTIONS = {
  relaxed: { impl: 'simd', wasm: RELAXED_URL },
  simd: { impl: 'simd' },
  scalar: { impl: 'scalar' },
};
export const WASM_BUILDS = Object.keys(OPTIONS);

// Node 20 validates relaxed SIMD only behind a flag, which V8 takes at run
// time before the module is compiled. (A variable specifier: bundlers leave
// the Node builtin alone; this branch only runs under Node.)
async function allowRelaxedInNode() {
  if (typeof process === 'undefined' || !process.versions?.node) return;
  const name = 'node:v8';
  const v8 = await import(/* @vite-ignore */ name);
  v8.setFlagsFromString('--experimental-wasm-relaxed-simd');
}

/** { instances: { relaxed, simd, scalar } (null: not loaded), unavailable: { build: reason } } for the wasm builds in `wanted`. */
export async function loadBuilds(wanted) {
  const instances = {}, unavailable = {};
  if (wanted.includes('relaxed')) await allowRelaxedInNode();
  for (const id of WASM_BUILDS) {
    instances[id] = null;
    if (!wanted.includes(id)) continue;
    try {
      instances[id] = await createSoftscope(OPTIONS[id]);
    } catch (e) {
      // relaxed SIMD presumes SIMD128: either missing, the engine refuses the module
      unavailable[id] = id === 'relaxed' && (e instanceof WebAssembly.CompileError || !detectSimd())
        ? 'this engine does not validate relaxed SIMD' : String(e.message ?? e).replace(/^[^:]*: /, '');
    }
  }
  return { instances, unavailable };
}
