// softscope — the package entry (ES module). createSoftscope() loads one of
// the wasm builds (relaxed SIMD, SIMD128 or scalar), reads the kernel registry out of it,
// and returns the API object (softscope.js, with one file of calls per
// family). Types: index.d.ts. Works unchanged in Node 20 (bytes read with
// fs) and in a browser or a Vite app (bytes fetched).
//
// The ground floor: api/ imports only api/ files and wasm/dist. The
// package's other entry points build on it (package.json "exports"):
// softscope/analysis (the dispersion sweep, presets, ...), softscope/state,
// softscope/views and softscope/views/<id>, softscope/figure (a view's
// files), softscope/figures (what figures are drawn with).
import { SoftscopeError, SoftscopeTypeError, SoftscopeTrapError, STATUS, statusCode, describe } from './errors.js';
import { detectSimd, detectRelaxedSimd, enableRelaxedSimd } from './simd-detect.js';
import { BUILD_URLS, compile, instantiate, instantiateSync } from './load.js';
import { Softscope } from './softscope.js';
import { options as checkOptions } from './args.js';

export { detectSimd, detectRelaxedSimd, SoftscopeError, SoftscopeTypeError, SoftscopeTrapError, STATUS, statusCode };
export { createModel, grammarText } from './model.js';

const IMPLS = ['auto', 'relaxed', 'simd', 'scalar'];
const BUILDS = ['relaxed', 'simd', 'scalar']; // best first

/**
 * Load softscope. options.impl: 'auto' (the relaxed-SIMD build where the
 * engine validates relaxed SIMD, else the SIMD128 build where it validates
 * SIMD128, else the scalar one), 'relaxed', 'simd' or 'scalar' (that build,
 * or an Error when the engine cannot run it; in Node 20 'relaxed' turns on
 * V8's --experimental-wasm-relaxed-simd first). options.wasm overrides the
 * module: bytes, a URL, a path (Node), a WebAssembly.Module, or
 * { relaxed, simd, scalar } with one of those per build ('auto' then picks
 * among the builds given). Instances of the same URL share one compiled
 * module. The result's .build says which build runs.
 */
export async function createSoftscope(options) {
  options = checkOptions(options, 'createSoftscope', ['impl', 'wasm']);
  const impl = options.impl ?? 'auto';
  if (!IMPLS.includes(impl))
    throw new SoftscopeError(`createSoftscope: options.impl must be 'auto', 'relaxed', 'simd' or 'scalar' (got ${describe(impl)})`,
      STATUS.SS_ERR_UNSUPPORTED, { argument: 'options.impl' });
  const simdSupported = detectSimd();
  const relaxedSupported = simdSupported && (impl === 'relaxed' ? await enableRelaxedSimd() : detectRelaxedSimd());
  if (impl === 'simd' && !simdSupported)
    throw new SoftscopeError("createSoftscope: impl 'simd' requested but this engine does not support WebAssembly SIMD128 (use impl 'auto' or 'scalar')",
      STATUS.SS_ERR_UNSUPPORTED, { argument: 'options.impl' });
  if (impl === 'relaxed' && !relaxedSupported)
    throw new SoftscopeError("createSoftscope: impl 'relaxed' requested but this engine does not validate WebAssembly relaxed SIMD (use impl 'auto' or 'simd')",
      STATUS.SS_ERR_UNSUPPORTED, { argument: 'options.impl' });

  let source = options.wasm;
  const perBuild = source && typeof source === 'object' && !(source instanceof URL) && !(source instanceof WebAssembly.Module) &&
    !(source instanceof ArrayBuffer) && !ArrayBuffer.isView(source);
  const runs = { relaxed: relaxedSupported, simd: simdSupported, scalar: true };
  const usable = BUILDS.filter((b) => runs[b]);
  // 'auto' with { simd, scalar }: the best build that was given
  const build = impl !== 'auto' ? impl : (perBuild && usable.find((b) => source[b] != null)) || usable[0];
  if (perBuild) source = source[build];
  if (source == null) source = BUILD_URLS[build];

  const module = await compile(source);
  const ex = await instantiate(module);
  return new Softscope(ex, impl, { simd: simdSupported, relaxed: relaxedSupported }, () => instantiateSync(module));
}

export default createSoftscope;
