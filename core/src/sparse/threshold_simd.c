/*
 * SIMD passes of the sparse threshold (see sparse/threshold.h): stable
 * compaction, Newton narrowing, the output pass.
 *
 * Compaction: compare 4 lanes, i32x4.bitmask, and an i8x16.swizzle from a
 * 16-entry table moves the kept lanes to the front; the whole vector is
 * stored at the write position, which never passes the read position, so
 * the stray lanes land on entries already read (in place works too) and
 * never beyond n. Groups of 16 with nothing kept cost one compare each.
 *
 * Newton narrowing (the vector part of the selection method). F(t) =
 * sum_j phi((x_j - t)_+ s) - 1, s = 1 (sparsemax) or 1/2 (entmax), is
 * convex and decreasing, so a Newton step from a t <= tau stays <= tau:
 *     t' = t + (F(t)) / |F'(t)|,   t_0 = the grid floor (F(t_0) >= 0).
 * For sparsemax this is Michelot's (1986) iteration, t' = (sum_{x >= t} x
 * - 1) / #{x >= t}. For entmax the step is Newton's on sqrt(F + 1) - 1
 * instead (sqrt of sum a_j^2 is a norm of convex decreasing a_j, so convex
 * and decreasing as well, and closer to linear: about twice the step).
 * Each step is one pass over the current candidates that keeps x >= t
 * (stable, in place in y) and accumulates, in f64x2 lanes, #, sum d and
 * sum d^2 (d = x - max) of the kept entries for the next step.
 * From far below, a step shrinks the distance to the top of the row by a
 * constant factor (uniform density: 1/2 for sparsemax, 1/3 for entmax), so
 * the first steps may keep everything and the later ones shrink the set
 * geometrically. The passes stop when F(t) = 0 (no progress), when <= 32
 * entries are left, or when the next pass would exceed a budget of 3 times
 * the first pass's output; the exact scalar search (ss_sparse_select) then
 * runs on what is left. Measured at n = 65539: uniform / narrow / sorted
 * rows shrink from 6.6k-65k candidates to 1.0-1.04 times the support
 * (sparsemax) or exactly the support (entmax); rows of ties stop at the
 * tied block.
 *
 * Why the result is exactly the scalar one: every entry left out is below
 * every entry kept, and adds 0 to (*) of a kept entry. So the search on the
 * kept subset T finds S ∩ T with the same sums; if some kept entry is out of
 * S, every smaller entry is too and S ∩ T = S. Only when all of T is in S
 * must the largest entry left out be tested (ss_sparse_would_join, exact);
 * if it would join -- rounding in the Newton step beyond the margin -- the
 * driver searches all entries >= the floor. Either way the search sees a
 * superset of S, and (c, S1, S2, min q) are those of S: bitwise the same
 * tau and y as the scalar code.
 */
#include <float.h>
#include <math.h>

#include "common/check.h"
#include "common/vec_simd.h"
#include "sparse/threshold.h"

#if SS_HAVE_SIMD

/* Byte shuffles moving the lanes of a 4-bit mask to the front, in order. */
static const uint8_t compact_lut[16][16] = {
    {0},
    {0, 1, 2, 3},
    {4, 5, 6, 7},
    {0, 1, 2, 3, 4, 5, 6, 7},
    {8, 9, 10, 11},
    {0, 1, 2, 3, 8, 9, 10, 11},
    {4, 5, 6, 7, 8, 9, 10, 11},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
    {12, 13, 14, 15},
    {0, 1, 2, 3, 12, 13, 14, 15},
    {4, 5, 6, 7, 12, 13, 14, 15},
    {0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 15},
    {8, 9, 10, 11, 12, 13, 14, 15},
    {0, 1, 2, 3, 8, 9, 10, 11, 12, 13, 14, 15},
    {4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
};
static const uint8_t popcount4[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

static inline size_t put(float *y, size_t w, v128_t v, v128_t keep) {
  const unsigned bits = (unsigned)wasm_i32x4_bitmask(keep);
  wasm_v128_store(y + w, wasm_i8x16_swizzle(v, wasm_v128_load(compact_lut[bits])));
  return w + popcount4[bits];
}

size_t ss_compact_ge_simd(const float *x, size_t n, float lo, float *y) {
  const v128_t vlo = wasm_f32x4_splat(lo);
  size_t i = 0, w = 0;
  for (; i + 16 <= n; i += 16) {
    const v128_t a = wasm_v128_load(x + i), b = wasm_v128_load(x + i + 4);
    const v128_t c = wasm_v128_load(x + i + 8), d = wasm_v128_load(x + i + 12);
    const v128_t ka = wasm_f32x4_ge(a, vlo), kb = wasm_f32x4_ge(b, vlo);
    const v128_t kc = wasm_f32x4_ge(c, vlo), kd = wasm_f32x4_ge(d, vlo);
    if (!wasm_v128_any_true(wasm_v128_or(wasm_v128_or(ka, kb), wasm_v128_or(kc, kd))))
      continue;
    w = put(y, w, a, ka);
    w = put(y, w, b, kb);
    w = put(y, w, c, kc);
    w = put(y, w, d, kd);
  }
  for (; i + 4 <= n; i += 4) {
    const v128_t a = wasm_v128_load(x + i);
    w = put(y, w, a, wasm_f32x4_ge(a, vlo));
  }
  for (; i < n; i++)
    if (x[i] >= lo) y[w++] = x[i];
  return w;
}

typedef struct sums {
  v128_t s1, s2; /* f64x2: sum d, sum d^2 */
  v128_t count;  /* i32x4 */
  v128_t out;    /* f32x4: max of the entries left out */
} sums;

/* Accumulate the kept lanes of v (d = x - max in double). */
static inline void add4(sums *a, v128_t v, v128_t keep, v128_t vmax,
                        bool square, bool track) {
  const v128_t dl = wasm_f64x2_sub(wasm_f64x2_promote_low_f32x4(v), vmax);
  const v128_t dh = wasm_f64x2_sub(
      wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(v, v, 2, 3, 0, 1)), vmax);
  /* Masked lanes may hold d = -Inf (x = -Inf); AND with 0 gives +0. */
  const v128_t kl = wasm_i64x2_extend_low_i32x4(keep);
  const v128_t kh = wasm_i64x2_extend_high_i32x4(keep);
  a->s1 = wasm_f64x2_add(a->s1, wasm_f64x2_add(wasm_v128_and(dl, kl), wasm_v128_and(dh, kh)));
  if (square)
    a->s2 = wasm_f64x2_add(a->s2, wasm_f64x2_add(wasm_v128_and(wasm_f64x2_mul(dl, dl), kl),
                                                 wasm_v128_and(wasm_f64x2_mul(dh, dh), kh)));
  a->count = wasm_i32x4_sub(a->count, keep);
  if (track)
    a->out = wasm_f32x4_pmax(a->out, wasm_v128_bitselect(wasm_f32x4_splat(-INFINITY), v, keep));
}

/* Keep src[i] >= thr (stable, into dst; dst == src is fine), summing the
   kept entries; *out (when track) gets the max of the others. */
static inline size_t keep_sum(const float *src, size_t n, float thr, double max,
                              bool square, bool track, float *dst, size_t *count,
                              double *s1, double *s2, float *out) {
  const v128_t vt = wasm_f32x4_splat(thr), vmax = wasm_f64x2_splat(max);
  sums a = {wasm_f64x2_splat(0.0), wasm_f64x2_splat(0.0), wasm_i32x4_splat(0),
            wasm_f32x4_splat(-INFINITY)};
  size_t i = 0, w = 0;
  for (; i + 16 <= n; i += 16) {
    const v128_t va = wasm_v128_load(src + i), vb = wasm_v128_load(src + i + 4);
    const v128_t vc = wasm_v128_load(src + i + 8), vd = wasm_v128_load(src + i + 12);
    const v128_t ka = wasm_f32x4_ge(va, vt), kb = wasm_f32x4_ge(vb, vt);
    const v128_t kc = wasm_f32x4_ge(vc, vt), kd = wasm_f32x4_ge(vd, vt);
    if (!track &&
        !wasm_v128_any_true(wasm_v128_or(wasm_v128_or(ka, kb), wasm_v128_or(kc, kd))))
      continue;
    add4(&a, va, ka, vmax, square, track);
    add4(&a, vb, kb, vmax, square, track);
    add4(&a, vc, kc, vmax, square, track);
    add4(&a, vd, kd, vmax, square, track);
    w = put(dst, w, va, ka);
    w = put(dst, w, vb, kb);
    w = put(dst, w, vc, kc);
    w = put(dst, w, vd, kd);
  }
  for (; i + 4 <= n; i += 4) {
    const v128_t v = wasm_v128_load(src + i), k = wasm_f32x4_ge(v, vt);
    add4(&a, v, k, vmax, square, track);
    w = put(dst, w, v, k);
  }
  if (i < n) { /* pad with -Inf: never kept */
    const size_t rem = n - i;
    const v128_t v = ss_load_partial(src + i, rem, -INFINITY), k = wasm_f32x4_ge(v, vt);
    add4(&a, v, k, vmax, square, track);
    float tmp[4];
    const size_t kept = put(tmp, 0, v, k);
    for (size_t j = 0; j < kept; j++) dst[w++] = tmp[j];
  }
  *count = ss_sparse_count_lanes(a.count);
  *s1 = wasm_f64x2_extract_lane(a.s1, 0) + wasm_f64x2_extract_lane(a.s1, 1);
  *s2 = wasm_f64x2_extract_lane(a.s2, 0) + wasm_f64x2_extract_lane(a.s2, 1);
  if (track) {
    v128_t o = wasm_f32x4_pmax(a.out, wasm_i32x4_shuffle(a.out, a.out, 2, 3, 0, 1));
    o = wasm_f32x4_pmax(o, wasm_i32x4_shuffle(o, o, 1, 0, 3, 2));
    *out = wasm_f32x4_extract_lane(o, 0);
  }
  return w;
}

/* One Newton step from e = t - max (x units) over the N entries >= t with
   sums s1 = sum d, s2 = sum d^2; false when it cannot be taken. */
static bool newton(bool square, size_t N, double s1, double s2, double e,
                   double *next) {
  const double c = (double)N;
  if (!square) { /* F = s1 - N e - 1, |F'| = N */
    *next = (s1 - 1.0) / c;
    return true;
  }
  /* a = (d - e) / 2, F = sum a^2, |F'| = sum a. Newton on sqrt(F) - 1
     (sqrt F = ||a||_2 is convex and decreasing too, and nearer linear):
     e' = e + 2 (F - sqrt F) / |F'|, about twice the plain step. */
  const double sa = 0.5 * (s1 - c * e);
  const double saa = 0.25 * (s2 - 2.0 * e * s1 + c * e * e);
  if (!(sa > 0.0) || !(saa >= 1.0)) return false;
  *next = e + 2.0 * (saa - sqrt(saa)) / sa;
  return true;
}

size_t ss_sparse_narrow_simd(const float *x, size_t n, const ss_grid *g,
                             float lo, double margin, float *y,
                             float *excluded) {
  const bool sq = g->square;
  size_t m, cnt;
  double s1, s2;
  float out = -INFINITY;
  *excluded = -INFINITY;
  /* The first pass leaves out only entries below the floor: none can be in
     S, so they are not tracked. */
  m = keep_sum(x, n, lo, g->max, sq, false, y, &cnt, &s1, &s2, &out);
  float thr = lo;
  /* Work budget: the passes after the first read at most 3 m_0 entries in
     all, so a slowly converging row costs a bounded multiple of one pass. */
  size_t budget = 3 * m;
  while (m > 32 && m <= budget) {
    double e;
    if (!newton(sq, m, s1, s2, (double)thr - g->max, &e)) break;
    const float t = nextafterf((float)(g->max + (e - margin)), -INFINITY);
    if (!(t > thr)) break; /* converged: F(t) = 0 up to rounding */
    budget -= m;
    m = keep_sum(y, m, t, g->max, sq, true, y, &cnt, &s1, &s2, &out);
    if (out > *excluded) *excluded = out;
    thr = t;
  }
  return m;
}

size_t ss_sparse_output_simd(const float *x, size_t n, const ss_grid *g,
                             double theta, float vmin, float *y) {
  const v128_t vmin4 = wasm_f32x4_splat(vmin), zero = wasm_f32x4_splat(0.0f);
  const v128_t vmax = wasm_f64x2_splat(g->max), vth = wasm_f64x2_splat(theta);
  const v128_t half = wasm_f64x2_splat(0.5), zero2 = wasm_f64x2_splat(0.0);
  v128_t count = wasm_i32x4_splat(0);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t v = wasm_v128_load(x + i), in = wasm_f32x4_ge(v, vmin4);
    if (!wasm_v128_any_true(in)) {
      wasm_v128_store(y + i, zero);
      continue;
    }
    v128_t dl = wasm_f64x2_sub(wasm_f64x2_promote_low_f32x4(v), vmax);
    v128_t dh = wasm_f64x2_sub(
        wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(v, v, 2, 3, 0, 1)), vmax);
    if (g->square) {
      dl = wasm_f64x2_mul(dl, half);
      dh = wasm_f64x2_mul(dh, half);
    }
    dl = wasm_f64x2_pmax(zero2, wasm_f64x2_sub(dl, vth));
    dh = wasm_f64x2_pmax(zero2, wasm_f64x2_sub(dh, vth));
    if (g->square) {
      dl = wasm_f64x2_mul(dl, dl);
      dh = wasm_f64x2_mul(dh, dh);
    }
    const v128_t r = wasm_v128_and(
        wasm_i32x4_shuffle(wasm_f32x4_demote_f64x2_zero(dl), wasm_f32x4_demote_f64x2_zero(dh), 0, 1,
                           4, 5),
        in);
    wasm_v128_store(y + i, r);
    count = wasm_i32x4_sub(count, wasm_f32x4_gt(r, zero));
  }
  size_t k = ss_sparse_count_lanes(count);
  for (; i < n; i++) {
    y[i] = ss_sparse_output1(g, theta, vmin, x[i]);
    k += y[i] > 0.0f;
  }
  return k;
}

#endif /* SS_HAVE_SIMD */
