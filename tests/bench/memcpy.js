// The memcpy lines of the benchmark: how long moving a kernel's bytes takes
// on this machine, measured in the same run.
//   wasm    memory.copy (bulk memory) in a module assembled here: what a wasm
//           kernel's memory traffic is bounded by;
//   native  TypedArray.prototype.set between two buffers (V8 calls the C
//           library's memmove).
//   new array  x.slice() (families.js): a fresh Float32Array of n floats and
//           the copy into it -- the floor of any call that returns a new
//           array (ss.normalize, tf.softmax + dataSync): its pages are new
//           to the process each time glibc has given freed ones back.
// Each copies n floats: 4n bytes read and 4n written, the same bytes as a
// normalizer reading x and writing y.

// (module (memory (export "memory") 1)
//   (func (export "copy") (param i32 i32 i32) local.get 0 local.get 1 local.get 2 memory.copy))
const MODULE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  0x01, 0x07, 0x01, 0x60, 0x03, 0x7f, 0x7f, 0x7f, 0x00, // type: (i32 i32 i32) -> ()
  0x03, 0x02, 0x01, 0x00, // func 0: type 0
  0x05, 0x03, 0x01, 0x00, 0x01, // memory: min 1 page
  0x07, 0x11, 0x02, 0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02, 0x00, // export "memory"
  0x04, 0x63, 0x6f, 0x70, 0x79, 0x00, 0x00, // export "copy"
  0x0a, 0x0e, 0x01, 0x0c, 0x00, 0x20, 0x00, 0x20, 0x01, 0x20, 0x02, 0xfc, 0x0a, 0x00, 0x00, 0x0b,
]);

let instance = null;

/** Candidates { wasm, native } copying n floats (fresh buffers per n). */
export function memcpyCandidates(n) {
  instance ??= new WebAssembly.Instance(new WebAssembly.Module(MODULE), {});
  const { memory, copy } = instance.exports;
  const need = Math.ceil((8 * n + 64) / 65536) - memory.buffer.byteLength / 65536;
  if (need > 0) memory.grow(need);
  const src = 0, dst = 4 * n, bytes = 4 * n;
  const a = new Float32Array(n), b = new Float32Array(n);
  return {
    wasm: () => copy(dst, src, bytes),
    native: () => b.set(a),
  };
}
