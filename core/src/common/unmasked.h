/* The number of unmasked entries (x_i != -Inf; NaN counts) of a row, one
   function per impl (common/impl_pair.h), both exact: the length-aware
   normalizers (adaptive/) and ASEntmax (entmax/) scale by it, top-k softmax
   skips its selection when at most k logits are finite. */
#ifndef SS_COMMON_UNMASKED_H
#define SS_COMMON_UNMASKED_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "common/simd.h"

static inline size_t ss_count_unmasked_scalar(const float *x, size_t n) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++) c += x[i] != -INFINITY;
  return c;
}

#if SS_HAVE_SIMD
static inline size_t ss_count_unmasked_simd(const float *x, size_t n) {
  const v128_t ninf = wasm_f32x4_splat(-INFINITY);
  v128_t c = wasm_i32x4_splat(0); /* lanes count down by 1 per unmasked */
  size_t i = 0;
  for (; i + 4 <= n; i += 4)
    c = wasm_i32x4_add(c, wasm_f32x4_ne(wasm_v128_load(x + i), ninf));
  size_t tail = 0;
  for (; i < n; i++) tail += x[i] != -INFINITY;
  /* Each lane holds minus its count (<= 2^24 per lane for n <= 2^26). */
  const int64_t neg = (int64_t)wasm_i32x4_extract_lane(c, 0) + wasm_i32x4_extract_lane(c, 1) +
                      wasm_i32x4_extract_lane(c, 2) + wasm_i32x4_extract_lane(c, 3);
  return tail + (size_t)(-neg);
}
#endif

#endif
