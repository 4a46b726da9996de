/*
 * The k-th largest of e[0..n) (duplicates counted) for small k, by one pass
 * with a bounded min-heap of the k largest seen so far -- the top_k
 * sampler's threshold (top_k.c) without the quickselect's copy and its
 * unpredictable partition passes.
 *
 *   heap = the first k entries (a min-heap: heap[0] its smallest);
 *   for i >= k: e_i > heap[0]  ->  heap[0] = e_i, sift down;
 *   the answer is heap[0].
 *
 * The multiset of the heap is the k largest of what has been read (an entry
 * equal to the root changes no order statistic), so heap[0] is the k-th
 * largest, the value a sort or a quickselect returns. Past the first k
 * entries the root only grows, and on logits most entries fall below it:
 * the SIMD version compares four entries at once against the root and
 * looks at them one by one only when one is above it (about k log(n / k)
 * times for entries in random order). Both versions return the same value.
 */
#include "sample/sample_internal.h"

static void sift_down(float *h, size_t k, size_t i) {
  const float v = h[i];
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= k) break;
    if (c + 1 < k && h[c + 1] < h[c]) c++;
    if (!(h[c] < v)) break;
    h[i] = h[c];
    i = c;
  }
  h[i] = v;
}

static void heapify(float *h, size_t k) {
  for (size_t i = k / 2; i-- > 0;) sift_down(h, k, i);
}

/* e_i into the heap when it is above the root. */
static inline void offer(float *h, size_t k, float v) {
  if (v > h[0]) {
    h[0] = v;
    sift_down(h, k, 0);
  }
}

float ss_topk_kth_scalar(const float *e, size_t n, size_t k, float *heap) {
  for (size_t i = 0; i < k; i++) heap[i] = e[i];
  heapify(heap, k);
  for (size_t i = k; i < n; i++) offer(heap, k, e[i]);
  return heap[0];
}

#if SS_HAVE_SIMD
float ss_topk_kth_simd(const float *e, size_t n, size_t k, float *heap) {
  for (size_t i = 0; i < k; i++) heap[i] = e[i];
  heapify(heap, k);
  size_t i = k;
  v128_t root = wasm_f32x4_splat(heap[0]);
  for (; i + 8 <= n; i += 8) {
    const v128_t a = wasm_v128_load(e + i), b = wasm_v128_load(e + i + 4);
    if (!wasm_v128_any_true(wasm_v128_or(wasm_f32x4_gt(a, root), wasm_f32x4_gt(b, root)))) continue;
    for (size_t j = i; j < i + 8; j++) offer(heap, k, e[j]);
    root = wasm_f32x4_splat(heap[0]);
  }
  for (; i < n; i++) offer(heap, k, e[i]);
  return heap[0];
}
#endif
