// Does this engine accept WebAssembly SIMD128, and relaxed SIMD? We ask the
// validator about the smallest module that uses each (the probes
// wasm-feature-detect uses too, for SIMD128):
//
//   (module (func (result v128) i32.const 0 i8x16.splat i8x16.popcnt))
//
// i8x16.popcnt (0xfd 0x62) was among the last opcodes added before SIMD128
// was finalized, so an engine that validates it implements the final spec
// that emcc's -msimd128 targets, not an early prototype.
const SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // "\0asm", version 1
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, //       type section: () -> v128
  0x03, 0x02, 0x01, 0x00, //                         function section: one func of type 0
  0x0a, 0x0a, 0x01, 0x08, 0x00, //                   code section: one body, no locals
  0x41, 0x00, //                                     i32.const 0
  0xfd, 0x0f, //                                     i8x16.splat
  0xfd, 0x62, //                                     i8x16.popcnt
  0x0b, //                                           end
]);

// Relaxed SIMD, with the op the relaxed build is for (f32x4.relaxed_madd,
// 0xfd 0x105, the final opcode that clang-19 emits):
//
//   (module (func (result v128)
//     i32.const 0 i8x16.splat i32.const 0 i8x16.splat i32.const 0 i8x16.splat
//     f32x4.relaxed_madd))
const RELAXED_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // "\0asm", version 1
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b, //       type section: () -> v128
  0x03, 0x02, 0x01, 0x00, //                         function section: one func of type 0
  0x0a, 0x13, 0x01, 0x11, 0x00, //                   code section: one body, no locals
  0x41, 0x00, 0xfd, 0x0f, //                         i32.const 0, i8x16.splat
  0x41, 0x00, 0xfd, 0x0f, //                         i32.const 0, i8x16.splat
  0x41, 0x00, 0xfd, 0x0f, //                         i32.const 0, i8x16.splat
  0xfd, 0x85, 0x02, //                               f32x4.relaxed_madd
  0x0b, //                                           end
]);

function validates(bytes) {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(bytes);
  } catch {
    return false;
  }
}

/** True when the engine validates a SIMD128 module. */
export function detectSimd() {
  return validates(SIMD_PROBE);
}

/** True when the engine validates a relaxed-SIMD module (Chromium 114+ by
 *  default; Node 20 only with --experimental-wasm-relaxed-simd). */
export function detectRelaxedSimd() {
  return validates(RELAXED_PROBE);
}

/** Node only: turn on V8's relaxed-SIMD flag (Node 20 validates relaxed ops
 *  only with --experimental-wasm-relaxed-simd; Node 22 and browsers need
 *  nothing). It holds for modules compiled from then on. Resolves to whether
 *  the engine now validates relaxed SIMD; elsewhere it only detects. */
export async function enableRelaxedSimd() {
  if (detectRelaxedSimd()) return true;
  if (typeof process === 'undefined' || !process.versions?.node) return false;
  // getBuiltinModule (Node >= 20.16), else a variable specifier: either way
  // bundlers do not try to resolve a Node builtin for the browser.
  const name = 'node:v8';
  const v8 = process.getBuiltinModule?.(name) ?? await import(/* @vite-ignore */ name);
  v8.setFlagsFromString('--experimental-wasm-relaxed-simd');
  return detectRelaxedSimd();
}

export { SIMD_PROBE, RELAXED_PROBE };
