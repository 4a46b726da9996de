/*
 * The exact threshold of sparsemax and 1.5-entmax, shared by both kernels
 * and by every method (selection or sort) and implementation (scalar, SIMD).
 *
 * Both are p_i = phi(z_i - tau)_+ with sum_i p_i = 1, phi(t) = t for
 * sparsemax (z = x) and phi(t) = t^2 for 1.5-entmax (z = x / 2). Since
 * F(t) = sum_j phi(z_j - t)_+ decreases in t, an entry z_k is in the support
 * (p_k > 0) exactly when
 *
 *     g(z_k) = sum_j phi(z_j - z_k)_+ < 1,                              (*)
 *
 * a condition monotone in z_k: the support is the top-K entries, found by a
 * sort and a scan (Martins & Astudillo 2016; Peters et al. 2019) or by a
 * quickselect-style search over pivots in expected O(n) (Duchi et al. 2008,
 * Kiwiel 2008), both here.
 *
 * Exactness. (*) is decided in integer arithmetic, so every method and
 * implementation finds the same support, including ties and entries that
 * sit exactly on the threshold. Each entry is put on a fixed grid relative
 * to the row maximum m:
 *
 *     d = (double)x - m,   q = trunc(d * 2^G) (an int64),
 *
 * with G = 62 for sparsemax (d in (-1, 0]) and q = trunc(d/2 * 2^48) for
 * entmax (d/2 in (-1, 0]); an entry with d <= -1 (sparsemax) or d <= -2
 * (entmax) gets the floor value -2^G, which (*) always rejects because the
 * maximum alone contributes phi(1) = 1. On the grid (*) reads
 *     sparsemax: sum_{j >= k} (q_j - q_k)     < 2^62
 *     entmax15:  sum_{j >= k} (q_j - q_k)^2   < 2^96,
 * computed from the count c, S1 = sum q and S2 = sum q^2 of the entries >=
 * z_k in __int128 (|S2| <= 2^26 * 2^96, every intermediate below 2^125).
 * The grid loses nothing for sparsemax (a double d in (-1, 0] has no bit
 * below 2^-62 unless |d| < 2^-10) and at most 2^-48 for entmax.
 *
 * Sums of integers do not depend on the order of addition, so tau -- a
 * function of (c, S1, S2, min q) of the support alone -- is bitwise the same
 * for the sort and the selection methods and for the scalar and SIMD code.
 *
 * tau, relative to the maximum (theta = tau - m for sparsemax, tau - m/2
 * for entmax, in double):
 *     sparsemax: theta = (S1 - 2^62) / c * 2^-62
 *     entmax15:  with r = min q, D1 = sum (q - r), D2 = sum (q - r)^2 (< 2^96
 *                by (*)) and W = c D2 - D1^2 (exact, >= 0):
 *                theta = S1 / c * 2^-48 - sqrt(delta),
 *                delta = (c 2^96 - W) / (c^2 2^96)
 *                i.e. tau = mean - sqrt((1 - k (ms - mean^2)) / k) of the
 *                paper, with the cancellation done exactly in integers.
 * Output: y_i = phi(d_i - theta) (entmax: phi(d_i / 2 - theta)) in double,
 * rounded once to float, for x_i >= the smallest support entry, else 0.
 */
#ifndef SS_SPARSE_THRESHOLD_H
#define SS_SPARSE_THRESHOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/impl_pair.h"
#include "common/simd.h"
#include "softscope.h"

__extension__ typedef __int128 ss_i128;

typedef enum ss_sparse_kind {
  SS_SPARSE_SPARSEMAX = 0, /* phi(t) = t,   z = x     */
  SS_SPARSE_ENTMAX15 = 1   /* phi(t) = t^2, z = x / 2 */
} ss_sparse_kind;

/* The integer grid of one row. */
typedef struct ss_grid {
  double max;     /* the row maximum */
  double scale;   /* q = trunc(d * scale): 2^62, or 2^47 for entmax */
  double dmin;    /* d <= dmin is off the grid (floor): -1 or -2 */
  int64_t qfloor; /* -2^62 or -2^48 */
  ss_i128 one;    /* 1 on the grid: 2^62, or (2^48)^2 = 2^96 */
  bool square;    /* entmax */
} ss_grid;

void ss_grid_init(ss_grid *g, ss_sparse_kind kind, float max);

static inline int64_t ss_grid_q(const ss_grid *g, float x) {
  const double d = (double)x - g->max;
  return d > g->dmin ? (int64_t)(d * g->scale) : g->qfloor;
}

/* A float <= m - 1 (sparsemax) or <= m - 2 (entmax), >= -FLT_MAX: entries
   below it have d below the grid and are never in the support, so the
   search may start from the entries >= it. */
float ss_sparse_floor(ss_sparse_kind kind, float max);

/* The support found by a search. */
typedef struct ss_support {
  size_t count;   /* c = |S| (>= 1: the maximum is always in S) */
  ss_i128 s1, s2; /* sum of q and of q^2 over S (s2: entmax only) */
  int64_t qmin;   /* q of the smallest entry of S */
  float vmin;     /* the smallest entry of S: S = {x >= vmin} */
} ss_support;

/* Expected-O(m) search over v[0..m) (permuted). v must hold every entry of
   the support (a superset; all finite). `work` as in common/select.h. */
void ss_sparse_select(float *v, size_t m, const ss_grid *g, ss_support *s,
                      size_t *work);
/* The textbook method: sort v[0..m) descending, scan while (*) holds.
   v holds every finite entry; entries < lo end the scan. */
void ss_sparse_sort(float *v, size_t m, float lo, const ss_grid *g,
                    ss_support *s);
/* Whether an entry x smaller than every entry of S also satisfies (*),
   i.e. whether S, found on a subset, is missing it. */
bool ss_sparse_would_join(const ss_grid *g, const ss_support *s, float x);
/* theta = tau - max (sparsemax) or tau - max / 2 (entmax), see above. */
double ss_sparse_theta(const ss_grid *g, const ss_support *s);

/* One output value (both impls compute exactly these double operations). */
static inline float ss_sparse_output1(const ss_grid *g, double theta,
                                      float vmin, float x) {
  if (!(x >= vmin)) return 0.0f;
  const double d = (double)x - g->max;
  const double t = g->square ? 0.5 * d - theta : d - theta;
  if (!(t > 0.0)) return 0.0f;
  return (float)(g->square ? t * t : t);
}

/* Stable copy of the entries x >= lo into y; returns their count. */
size_t ss_compact_ge_scalar(const float *x, size_t n, float lo, float *y);
/* y = phi(d - theta) on {x >= vmin}, 0 elsewhere; returns #{y > 0}. */
size_t ss_sparse_output_scalar(const float *x, size_t n, const ss_grid *g,
                               double theta, float vmin, float *y);

#if SS_HAVE_SIMD
/* Sum of the four i32 lanes of a counter (each < 2^31). */
static inline size_t ss_sparse_count_lanes(v128_t c) {
  return (size_t)(uint32_t)wasm_i32x4_extract_lane(c, 0) +
         (size_t)(uint32_t)wasm_i32x4_extract_lane(c, 1) +
         (size_t)(uint32_t)wasm_i32x4_extract_lane(c, 2) +
         (size_t)(uint32_t)wasm_i32x4_extract_lane(c, 3);
}
size_t ss_compact_ge_simd(const float *x, size_t n, float lo, float *y);
size_t ss_sparse_output_simd(const float *x, size_t n, const ss_grid *g,
                             double theta, float vmin, float *y);
/* Newton narrowing: copies to y a subset of the entries >= floor that still
   holds the support (see threshold_simd.c) and returns its size; *excluded
   receives the largest entry >= floor left out (-Inf: none). `margin`
   (d units) widens each step; tests pass a negative one to force the
   fallback path. */
size_t ss_sparse_narrow_simd(const float *x, size_t n, const ss_grid *g,
                             float lo, double margin, float *y,
                             float *excluded);
#endif

/* Arguments of the *_ex entry points, as ss_normalize checks them, plus the
   method (SS_ERR_PARAM_RANGE). */
ss_status ss_sparse_check_args(ss_impl impl, ss_threshold_method method,
                               const float *x, size_t n, const float *y);

/* Default narrowing margin of the SIMD selection: 2^-24 in units of x, far
   above the rounding of the Newton steps (~1e-16 relative), so the
   fallback is essentially never needed. */
#define SS_SPARSE_MARGIN 0x1p-24

/* The whole kernel, one function per impl: validate x, find S by `method`,
   write y; tau and support (may be NULL) receive tau (float) and #{y > 0}.
   Writes nothing to y on a data error. Arguments are checked by the
   callers. `margin`: see ss_sparse_narrow_simd (the scalar code, which does
   not narrow, ignores it). */
ss_status ss_sparse_run_scalar(ss_sparse_kind kind, ss_threshold_method method,
                               const float *x, size_t n, double margin, float *y,
                               float *tau, size_t *support);
#if SS_HAVE_SIMD
ss_status ss_sparse_run_simd(ss_sparse_kind kind, ss_threshold_method method,
                             const float *x, size_t n, double margin, float *y,
                             float *tau, size_t *support);
#endif
/* Either, by impl (tests pass their own margin). */
ss_status ss_sparse_run_margin(ss_sparse_kind kind, ss_impl impl,
                               ss_threshold_method method, const float *x,
                               size_t n, double margin, float *y, float *tau,
                               size_t *support);
/* ss_sparsemax_ex / ss_entmax15_ex: the arguments checked
   (ss_sparse_check_args), then the kernel by impl with SS_SPARSE_MARGIN. */
ss_status ss_sparse_ex(ss_sparse_kind kind, ss_impl impl, ss_threshold_method method,
                       const float *x, size_t n, float *y, float *tau, size_t *support);

/* The VJP of both kernels, one function per impl (sparse_vjp.c). The
   Jacobian is diag(s) - s s^T / sum s with s_i = 1 on sparsemax's support
   {y > 0} (else 0) and s_i = sqrt(y_i) for 1.5-entmax, so
     dx = s (g - <s, g> / sum s)
   (0 when sum s = 0), and exactly +0 off sparsemax's support. g is finite
   (ss_normalize_vjp checks it). Scalar: sums and products in double; SIMD:
   float lanes within SS_SUM_BLOCK blocks, double across. */
void ss_sparse_vjp_scalar(ss_sparse_kind kind, const float *y, const float *g, size_t n,
                          float *dx);
#if SS_HAVE_SIMD
void ss_sparse_vjp_simd(ss_sparse_kind kind, const float *y, const float *g, size_t n,
                        float *dx);
#endif

/* The registry entry points of both kernels, written by SS_NORMALIZE_IMPLS
   / SS_NORMALIZE_VJP_IMPLS with the kernel's kind (params unused): the
   forward by the selection method, SIMD with SS_SPARSE_MARGIN. */
SS_ALWAYS_INLINE ss_status ss_sparse_forward_run(ss_sparse_kind kind, ss_impl impl,
                                                 const float *x, size_t n,
                                                 const double *params, float *y) {
  (void)params;
  return SS_BY_IMPL(impl, ss_sparse_run)(kind, SS_THRESHOLD_SELECT, x, n, SS_SPARSE_MARGIN, y,
                                         NULL, NULL);
}
SS_ALWAYS_INLINE ss_status ss_sparse_vjp_run(ss_sparse_kind kind, ss_impl impl,
                                             const float *x, const float *y, const float *g,
                                             size_t n, const double *params, float *dx) {
  (void)x;
  (void)params;
  SS_BY_IMPL(impl, ss_sparse_vjp)(kind, y, g, n, dx);
  return SS_OK;
}

/* The descriptor fields both kernels share: no parameters, the entry
   points kname_scalar / kname_simd and kname_vjp_scalar / kname_vjp_simd. */
#define SS_SPARSE_KERNEL(kname)                                               \
  .family = SS_FAMILY_NORMALIZER, .nparams = 0, .params = NULL,               \
  .input = SS_INPUT_LOGITS, .output = SS_OUTPUT_PROBS, .has_backward = true,  \
  .normalize = SS_IMPLS(kname), .normalize_vjp = SS_IMPLS(kname##_vjp)

/* Writes *tau (rounded to float) and *support when not NULL. */
void ss_sparse_report(const ss_grid *g, double theta, size_t k, float *tau,
                      size_t *support);

#endif
