// Does this engine accept WebAssembly SIMD128? We ask the validator about the
// smallest module that uses it (the probe wasm-feature-detect uses too):
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

/** True when the engine validates a SIMD128 module. */
export function detectSimd() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

export { SIMD_PROBE };
