// softscope — the package entry (ES module). createSoftscope() loads one of
// the wasm builds (SIMD128 or scalar), reads the kernel registry out of it,
// and returns the API object (softscope.js, with one file of calls per
// family). Types: index.d.ts. Works unchanged in Node 20 (bytes read with
// fs) and in a browser or a Vite app (bytes fetched).
//
// The package also exports what the CLI and the playground share: the
// analyses (analysis/), the views (views/: state schema + model per view),
// the figures (figures/) and the state serializer (state/).
import { SoftscopeError, SoftscopeTypeError, SoftscopeTrapError, STATUS, statusCode, describe } from './errors.js';
import { detectSimd } from './simd-detect.js';
import { SIMD_URL, SCALAR_URL, compile, instantiate, instantiateSync } from './load.js';
import { Softscope } from './softscope.js';
import { options as checkOptions } from './args.js';

export { detectSimd, SoftscopeError, SoftscopeTypeError, SoftscopeTrapError, STATUS, statusCode };
// The dispersion sweep (one planted key among n - 1 distractors, n up to
// 2^20), shared by the CLI and the playground.
export {
  dispersionSweep, dispersionSteps, dispersionGrid, dispersionInput,
  DISPERSION_N_MAX, DISPERSION_DEFAULTS, DISTRACTOR_KINDS, KEY_POSITIONS,
} from '../analysis/dispersion.js';

const IMPLS = ['auto', 'simd', 'scalar'];

/**
 * Load softscope. options.impl: 'auto' (SIMD iff the engine validates a
 * SIMD128 module), 'simd' or 'scalar'. options.wasm overrides the module:
 * bytes, a URL, a path (Node), a WebAssembly.Module, or { simd, scalar } with
 * one of those per build. Instances of the same URL share one compiled module.
 */
export async function createSoftscope(options) {
  options = checkOptions(options, 'createSoftscope', ['impl', 'wasm']);
  const impl = options.impl ?? 'auto';
  if (!IMPLS.includes(impl))
    throw new SoftscopeError(`createSoftscope: options.impl must be 'auto', 'simd' or 'scalar' (got ${describe(impl)})`,
      STATUS.SS_ERR_UNSUPPORTED, { argument: 'options.impl' });
  const simdSupported = detectSimd();
  if (impl === 'simd' && !simdSupported)
    throw new SoftscopeError("createSoftscope: impl 'simd' requested but this engine does not support WebAssembly SIMD128 (use impl 'auto' or 'scalar')",
      STATUS.SS_ERR_UNSUPPORTED, { argument: 'options.impl' });
  const wantSimd = impl === 'simd' || (impl === 'auto' && simdSupported);

  let source = options.wasm;
  if (source && typeof source === 'object' && !(source instanceof URL) && !(source instanceof WebAssembly.Module) &&
      !(source instanceof ArrayBuffer) && !ArrayBuffer.isView(source))
    source = wantSimd ? source.simd : source.scalar;
  if (source == null) source = wantSimd ? SIMD_URL : SCALAR_URL;

  const module = await compile(source);
  const ex = await instantiate(module);
  return new Softscope(ex, impl, simdSupported, () => instantiateSync(module));
}

export default createSoftscope;
