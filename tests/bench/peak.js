// This core's wasm SIMD peak, measured in the run (the matmul family's
// "peak" row): a module assembled here whose loop does nothing but
// independent multiply-adds on registers -- ACC accumulators (enough to
// cover the FMA latency on two pipes: 8 gave 56 GFLOP/s here, 10 gave 62,
// 12 gave 64-68), U repeats a loop iteration, no memory access:
//
//   fma     acc = f32x4.relaxed_madd(acc, m, c): one vfmadd231ps on an FMA
//           machine, 8 flops (4 lanes x 2) -- the peak: every row's "of
//           peak" is over this loop's GFLOP/s
//   muladd  acc = f32x4.add(f32x4.mul(acc, m), c): SIMD128's multiply and
//           add, both on the accumulator's chain, so latency-bound (a
//           matmul's multiply is off the chain: the SIMD build's products
//           ran faster than this loop); not a ceiling, shown for reference
//
// m = 0.5, c = 0.25: the accumulators converge to 0.5 and stay normal. The
// result (lane 0 of the accumulators' sum) is returned so no engine drops
// the loop. An engine without relaxed SIMD has no `fma` (validation
// fails): null.
// Engine-neutral (no Node module): the Chromium page runs it too.

const ACC = 12, U = 4;

const leb = (n) => {
  const out = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};
const vec = (items) => [...leb(items.length), ...items.flat()];
const section = (id, bytes) => [id, ...leb(bytes.length), ...bytes];
const f32x4 = (v) => [0xfd, 0x0c, ...new Uint8Array(new Float32Array([v, v, v, v]).buffer)];

function body(fused) {
  const M = ACC, C = ACC + 1, get = (i) => [0x20, ...leb(i + 1)], set = (i) => [0x21, ...leb(i + 1)];
  const code = [...f32x4(0.5), ...set(M), ...f32x4(0.25), ...set(C)];
  for (let i = 0; i < ACC; i++) code.push(...f32x4(i / ACC), ...set(i));
  code.push(0x03, 0x40); // loop
  for (let u = 0; u < U; u++)
    for (let i = 0; i < ACC; i++)
      code.push(...get(i), ...get(M), ...(fused ? [...get(C), 0xfd, 0x85, 0x02] // f32x4.relaxed_madd
        : [0xfd, 0xe6, 0x01, ...get(C), 0xfd, 0xe4, 0x01]), ...set(i)); // f32x4.mul, f32x4.add
  code.push(0x20, 0x00, 0x41, 0x01, 0x6b, 0x22, 0x00, 0x0d, 0x00, 0x0b); // n -= 1; br_if n; end
  code.push(...get(0));
  for (let i = 1; i < ACC; i++) code.push(...get(i), 0xfd, 0xe4, 0x01);
  code.push(0xfd, 0x1f, 0x00, 0x0b); // f32x4.extract_lane 0; end
  const fn = [...vec([[...leb(ACC + 2), 0x7b]]), ...code]; // ACC + 2 v128 locals
  return [...leb(fn.length), ...fn];
}

function module(fused) {
  const name = [...new TextEncoder().encode('run')];
  return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([[0x60, 0x01, 0x7f, 0x01, 0x7d]])), // (i32) -> f32
    ...section(3, vec([[0x00]])),
    ...section(7, vec([[...leb(name.length), ...name, 0x00, 0x00]])),
    ...section(10, vec([body(fused)]))]);
}

/** Flops of one call of a peak loop of `iters` iterations. */
export const peakFlops = (iters) => iters * U * ACC * 8;

/** { fma, muladd }: each a function (iters) -> f32 running the loop, or null
    where the engine does not validate it. */
export function peakLoops() {
  const make = (fused) => {
    try {
      return new WebAssembly.Instance(new WebAssembly.Module(module(fused)), {}).exports.run;
    } catch {
      return null;
    }
  };
  return { fma: make(true), muladd: make(false) };
}

export const PEAK_LOOP = { accumulators: ACC, unroll: U };
