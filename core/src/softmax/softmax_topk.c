/*
 * ss_softmax_topk — fused online softmax + top-k (Milakov & Gimelshein 2018,
 * "Online normalizer calculation for softmax", section 5):
 *
 *   one pass:  running (m, d) as in online_softmax.c, and the k largest
 *              (x_i, i) in a min-heap ordered by value, ties by index (the
 *              root is the entry that would be dropped first);
 *   then:      heap-sort the k entries descending, p_j = exp(v_j - m) / d.
 *
 * The full softmax vector is never written: cost O(n + n log k) reads, k
 * writes. The heap lives in the caller's probs[] (values) and indices[]; no
 * workspace. Since elements arrive in index order, a newcomer equal to the
 * root has a higher index and loses the tie: it enters only if x_i > root.
 *
 * SIMD: the (m, d) accumulation is the online-softmax lane recurrence, run
 * block by block (SS_SUM_BLOCK floats); the same block, still in L1, is then
 * scanned 16 floats at a time against the heap threshold with one compare
 * per vector -- the common case once the heap holds large values is that the
 * whole group is <= the threshold and is skipped; otherwise its elements are
 * inserted one by one. Probabilities are converted with the same exp as the
 * softmax kernels of the same implementation.
 *
 * On a data error (NaN, +Inf, all -Inf) probs[] and indices[] have been used
 * as scratch and hold no meaningful values.
 */
#include <math.h>

#include "common/check.h"
#include "common/impl_pair.h"
#include "common/vec_simd.h"
#include "softmax/online_internal.h"

/* ---- heap on (value, index) ----------------------------------------- */

/* a is dropped before b: smaller value, or same value and higher index. */
static inline bool worse(float va, uint32_t ia, float vb, uint32_t ib) {
  return va < vb || (va == vb && ia > ib);
}

static void sift_down(float *v, uint32_t *ix, size_t size, size_t pos) {
  const float pv = v[pos];
  const uint32_t pi = ix[pos];
  for (;;) {
    size_t c = 2 * pos + 1;
    if (c >= size) break;
    if (c + 1 < size && worse(v[c + 1], ix[c + 1], v[c], ix[c])) c++;
    if (!worse(v[c], ix[c], pv, pi)) break;
    v[pos] = v[c];
    ix[pos] = ix[c];
    pos = c;
  }
  v[pos] = pv;
  ix[pos] = pi;
}

static void heapify(float *v, uint32_t *ix, size_t k) {
  for (size_t p = k / 2; p-- > 0;) sift_down(v, ix, k, p);
}

/* Heap sort: repeatedly move the worst entry to the back -> best first. */
static void sort_desc(float *v, uint32_t *ix, size_t k) {
  for (size_t end = k; end-- > 1;) {
    const float tv = v[0];
    const uint32_t ti = ix[0];
    v[0] = v[end];
    ix[0] = ix[end];
    v[end] = tv;
    ix[end] = ti;
    sift_down(v, ix, end, 0);
  }
}

static inline void offer(float *v, uint32_t *ix, size_t k, float x,
                         size_t i) {
  if (x > v[0]) {
    v[0] = x;
    ix[0] = (uint32_t)i;
    sift_down(v, ix, k, 0);
  }
}

static void fill(const float *x, size_t k, float *v, uint32_t *ix) {
  for (size_t i = 0; i < k; i++) {
    v[i] = x[i];
    ix[i] = (uint32_t)i;
  }
  heapify(v, ix, k);
}

/* ---- scalar reference ----------------------------------------------- */

static ss_status topk_scalar(const float *x, size_t n, size_t k, float *v,
                             uint32_t *ix) {
  float m = -INFINITY;
  double d = 0.0;
  for (size_t i = 0; i < k; i++)
    if (!ss_online_step(x[i], &m, &d)) return ss_check_logits(x, n, NULL);
  fill(x, k, v, ix);
  for (size_t i = k; i < n; i++) {
    if (!ss_online_step(x[i], &m, &d)) return ss_check_logits(x, n, NULL);
    offer(v, ix, k, x[i], i);
  }
  if (m == -INFINITY) return SS_ERR_ALL_MASKED;
  sort_desc(v, ix, k);
  ss_online_apply_scalar(v, k, m, d, v);
  return SS_OK;
}

/* ---- SIMD128 ---------------------------------------------------------- */
#if SS_HAVE_SIMD

/* Offer x[i..end) to the heap, skipping groups of 16 below the threshold. */
static void scan_simd(const float *x, size_t i, size_t end, size_t k,
                      float *v, uint32_t *ix) {
  v128_t thr = wasm_f32x4_splat(v[0]);
  for (; i + 16 <= end; i += 16) {
    const v128_t a = wasm_v128_or(wasm_f32x4_gt(wasm_v128_load(x + i), thr),
                                  wasm_f32x4_gt(wasm_v128_load(x + i + 4), thr));
    const v128_t b = wasm_v128_or(wasm_f32x4_gt(wasm_v128_load(x + i + 8), thr),
                                  wasm_f32x4_gt(wasm_v128_load(x + i + 12), thr));
    if (wasm_v128_any_true(wasm_v128_or(a, b))) {
      for (size_t j = i; j < i + 16; j++) offer(v, ix, k, x[j], j);
      thr = wasm_f32x4_splat(v[0]);
    }
  }
  for (; i < end; i++) offer(v, ix, k, x[i], i);
}

static ss_status topk_simd(const float *x, size_t n, size_t k, float *v,
                           uint32_t *ix) {
  ss_online_lanes a;
  ss_online_lanes_init(&a);
  fill(x, k, v, ix);
  for (size_t c = 0; c < n; c += SS_SUM_BLOCK) {
    const size_t len = n - c > SS_SUM_BLOCK ? SS_SUM_BLOCK : n - c;
    if (!ss_online_lanes_add(&a, x + c, len)) return ss_check_logits(x, n, NULL);
    const size_t from = c < k ? k : c;
    if (from < c + len) scan_simd(x, from, c + len, k, v, ix);
  }
  if (a.max == -INFINITY) return SS_ERR_ALL_MASKED;
  sort_desc(v, ix, k);
  ss_online_apply_simd(v, k, a.max, a.sum, v);
  return SS_OK;
}

#endif /* SS_HAVE_SIMD */

ss_status ss_softmax_topk(ss_impl impl, const float *x, size_t n, size_t k,
                          float *probs, uint32_t *indices) {
  if (!x || !probs || !indices) return SS_ERR_NULL;
  if ((unsigned)impl >= SS_IMPL_COUNT || !ss_impl_available(impl))
    return SS_ERR_UNSUPPORTED;
  const ss_status s = ss_check_n(n);
  if (s != SS_OK) return s;
  if (k == 0 || k > n) return SS_ERR_LENGTH;
  return SS_BY_IMPL(impl, topk)(x, n, k, probs, indices);
}
