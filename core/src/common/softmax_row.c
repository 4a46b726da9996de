/*
 * The softmax row, the building block of every softmax-shaped kernel of
 * every family (softmax/, adaptive/, variants/, sparse/topk_softmax.c,
 * loss/cross_entropy.c): the exp-and-sum pass, the scale with the
 * subnormal rule, the row and its VJP, scalar reference and SIMD128 (the
 * formulas, bounds and measurements: softmax/softmax.c, whose kernel is
 * this row on its own). A common/ file so that no family includes another
 * family's internals. Built with relaxed SIMD in the relaxed build
 * (RELAXED_SRC in the Makefile): the exp's multiply-adds are relaxed_madd
 * and the flush a laneselect, within each caller's stated bound.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "common/exp_simd.h"
#include "common/softmax_row.h"
#include "common/vec_simd.h"

/* ---- scalar reference ------------------------------------------------- */

/* d + e = a - b exactly (TwoSum), see common/exp_simd.h for why. */
static inline float two_diff(float a, float b, float *e) {
  const float d = a - b, bb = a - d, da = d + bb;
  *e = (a - da) + (bb - b);
  return d;
}

double ss_exp_store_scalar(const float *x, size_t n, float max, double beta,
                           float *y) {
  double sum = 0.0;
  if (beta != 1.0) {
    /* exp(beta (x - m)) in double: x - m is exact there, the product and
       exp are rounded to 2^-53. */
    for (size_t i = 0; i < n; i++) {
      const double e = x[i] == -INFINITY ? 0.0 : exp(beta * ((double)x[i] - (double)max));
      y[i] = (float)e;
      sum += e;
    }
    return sum;
  }
  for (size_t i = 0; i < n; i++) {
    float e = 0.0f;
    if (x[i] != -INFINITY) { /* a masked logit gets exactly 0 */
      float err;
      const float d = two_diff(x[i], max, &err);
      /* exp(d + err) = exp(d) (1 + err) to first order */
      e = expf(d);
      /* When x - max overflows to -Inf, err is NaN and e is already 0. */
      if (e != 0.0f) e *= 1.0f + err;
    }
    y[i] = e;
    sum += e;
  }
  return sum;
}

void ss_softmax_row_scalar(const float *x, size_t n, float max, double beta,
                           float *y) {
  const double inv = 1.0 / ss_exp_store_scalar(x, n, max, beta, y);
  for (size_t i = 0; i < n; i++) y[i] = ss_flush_tiny((double)y[i] * inv);
}

void ss_softmax_vjp_core_scalar(const float *y, const float *g, size_t n,
                                float beta, float *dx) {
  double dot = 0.0;
  for (size_t i = 0; i < n; i++) dot += (double)g[i] * (double)y[i];
  for (size_t i = 0; i < n; i++)
    dx[i] = (float)((double)beta * (double)y[i] * ((double)g[i] - dot));
}

ss_status ss_softmax_vjp_scalar(const float *x, const float *y, const float *g,
                                size_t n, const double *params, float *dx) {
  (void)x;
  (void)params;
  ss_softmax_vjp_core_scalar(y, g, n, 1.0f, dx);
  return SS_OK;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

/* The running max, min and NaN flag of a row (ss_max_min_simd and the
   pair of rows of ss_softmax_pair_simd). */
typedef struct max_min_acc {
  v128_t hi0, hi1, lo0, lo1, nan;
} max_min_acc;

SS_ALWAYS_INLINE max_min_acc max_min_start(void) {
  max_min_acc a;
  a.hi0 = a.hi1 = wasm_f32x4_splat(-INFINITY);
  a.lo0 = a.lo1 = wasm_f32x4_splat(INFINITY);
  a.nan = wasm_i32x4_splat(0);
  return a;
}

SS_ALWAYS_INLINE void max_min_16(max_min_acc *m, const float *x) {
  const v128_t a = wasm_v128_load(x), b = wasm_v128_load(x + 4);
  const v128_t c = wasm_v128_load(x + 8), d = wasm_v128_load(x + 12);
  m->hi0 = wasm_f32x4_pmax(m->hi0, wasm_f32x4_pmax(a, b));
  m->hi1 = wasm_f32x4_pmax(m->hi1, wasm_f32x4_pmax(c, d));
  m->lo0 = wasm_f32x4_pmin(m->lo0, wasm_f32x4_pmin(a, b));
  m->lo1 = wasm_f32x4_pmin(m->lo1, wasm_f32x4_pmin(c, d));
  m->nan = wasm_v128_or(m->nan, wasm_v128_or(wasm_v128_or(wasm_f32x4_ne(a, a), wasm_f32x4_ne(b, b)),
                                             wasm_v128_or(wasm_f32x4_ne(c, c), wasm_f32x4_ne(d, d))));
}

/* the last < 16 of x[0..n) from i, the tail padded with x[0] */
SS_ALWAYS_INLINE void max_min_rest(max_min_acc *m, const float *x, size_t i, size_t n) {
  for (; i < n; i += 4) {
    const v128_t a = n - i >= 4 ? wasm_v128_load(x + i) : ss_load_partial(x + i, n - i, x[0]);
    m->hi0 = wasm_f32x4_pmax(m->hi0, a);
    m->lo0 = wasm_f32x4_pmin(m->lo0, a);
    m->nan = wasm_v128_or(m->nan, wasm_f32x4_ne(a, a));
  }
}

SS_ALWAYS_INLINE float max_min_finish(max_min_acc *m, float *min) {
  if (wasm_v128_any_true(m->nan)) return *min = NAN;
  v128_t hi = wasm_f32x4_pmax(m->hi0, m->hi1), lo = wasm_f32x4_pmin(m->lo0, m->lo1);
  hi = wasm_f32x4_pmax(hi, wasm_i32x4_shuffle(hi, hi, 2, 3, 0, 1));
  hi = wasm_f32x4_pmax(hi, wasm_i32x4_shuffle(hi, hi, 1, 0, 3, 2));
  lo = wasm_f32x4_pmin(lo, wasm_i32x4_shuffle(lo, lo, 2, 3, 0, 1));
  lo = wasm_f32x4_pmin(lo, wasm_i32x4_shuffle(lo, lo, 1, 0, 3, 2));
  *min = wasm_f32x4_extract_lane(lo, 0);
  return wasm_f32x4_extract_lane(hi, 0);
}

float ss_max_min_simd(const float *x, size_t n, float *min) {
  max_min_acc m = max_min_start();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) max_min_16(&m, x + i);
  max_min_rest(&m, x, i, n);
  return max_min_finish(&m, min);
}

/* The exp-and-sum pass, one template for the three exps: `kind` is a
   compile-time constant after inlining. EXP_M: ss_expm_f32x4; EXP_DIFF:
   ss_exp_diff_f32x4 (TwoSum) for a max outside ss_expm's range; EXP_Z: the
   double-reduced exp of beta (x - m). SS_EXP_UNROLL vectors per step,
   summed pairwise into two float accumulators, blocks of SS_SUM_BLOCK into
   a double. */
enum exp_kind { EXP_DIFF, EXP_M, EXP_Z };
/* Vectors per step, a multiple of 4. V8 (Node 20, x64), exp-and-store pass
   with relaxed_madd: 4: 0.58, 8: 0.52, 12: 0.48, 16: 0.61 ns per element --
   fewer leave loop overhead, more spill registers. */
#define SS_EXP_UNROLL 12

typedef struct exp_row {
  ss_exp_consts d;
  v128_t vmax;
  ss_expm m;
  ss_expz z;
} exp_row;

SS_ALWAYS_INLINE v128_t exp_lane(v128_t x, const exp_row *r, enum exp_kind kind) {
  switch (kind) {
    case EXP_DIFF: return ss_exp_diff_f32x4(x, r->vmax, &r->d);
    case EXP_M: return ss_expm_f32x4(x, &r->m);
    case EXP_Z: return ss_expz_f32x4(x, &r->z);
  }
  return x;
}

SS_ALWAYS_INLINE double exp_store(const float *x, size_t n, const exp_row *r,
                                  enum exp_kind kind, float *y) {
  double total = 0.0;
  size_t i = 0;
  while (i < n) {
    const size_t end = n - i > SS_SUM_BLOCK ? i + SS_SUM_BLOCK : n;
    v128_t s0 = wasm_f32x4_splat(0.0f), s1 = s0;
    for (; i + 4 * SS_EXP_UNROLL <= end; i += 4 * SS_EXP_UNROLL) {
      v128_t e[SS_EXP_UNROLL];
#pragma GCC unroll 16 /* clang-19 keeps the long EXP_Z body a loop over e[] otherwise */
      for (int j = 0; j < SS_EXP_UNROLL; j++) e[j] = exp_lane(wasm_v128_load(x + i + 4 * j), r, kind);
#pragma GCC unroll 16
      for (int j = 0; j < SS_EXP_UNROLL; j++) wasm_v128_store(y + i + 4 * j, e[j]);
#pragma GCC unroll 16
      for (int j = 0; j < SS_EXP_UNROLL; j += 4) {
        s0 = wasm_f32x4_add(s0, wasm_f32x4_add(e[j], e[j + 1]));
        s1 = wasm_f32x4_add(s1, wasm_f32x4_add(e[j + 2], e[j + 3]));
      }
    }
    for (; i + 4 <= end; i += 4) {
      const v128_t e = exp_lane(wasm_v128_load(x + i), r, kind);
      wasm_v128_store(y + i, e);
      s0 = wasm_f32x4_add(s0, e);
    }
    if (i < end) { /* tail: pad with -Inf, whose exp is exactly 0 */
      const size_t rem = end - i;
      const v128_t e = exp_lane(ss_load_partial(x + i, rem, -INFINITY), r, kind);
      ss_store_partial(y + i, rem, e);
      s1 = wasm_f32x4_add(s1, e);
      i = end;
    }
    total += ss_hsum_f64(wasm_f32x4_add(s0, s1));
  }
  return total;
}

double ss_expz_store_simd(const float *x, size_t n, double m, double beta, float *y) {
  exp_row r;
  ss_expz_init(m, beta, &r.z);
  return exp_store(x, n, &r, EXP_Z, y);
}

double ss_exp_store_simd(const float *x, size_t n, float max, double beta,
                         float *y) {
  exp_row r;
  if (beta != 1.0) return ss_expz_store_simd(x, n, max, beta, y);
  if (ss_expm_init(max, SS_EXPM_ONE, &r.m)) return exp_store(x, n, &r, EXP_M, y);
  r.d = ss_exp_consts_load(); /* max outside ss_expm's range */
  r.vmax = wasm_f32x4_splat(max);
  return exp_store(x, n, &r, EXP_DIFF, y);
}

/* Vectors per step. V8 (Node 20, x64), relaxed build, two-pass softmax at
   2^22 (2^24), ns per element of the whole kernel: 2: 1.04 (1.09), 3: 1.03
   (1.06), 4: 1.02 (1.06), 5: 0.99 (1.04), 6: 1.07 (1.11), 8: 1.15 (1.17),
   12: 1.35, 16: 1.44 -- past 5 the exp's constants and the in-flight
   vectors spill (unlike exp_store above, whose best is 12); the SIMD128
   build is the same at 4 and 8. */
#define SS_LSE_UNROLL 4

bool ss_exp_lse_store_simd(const float *x, size_t n, double c, float *y) {
  ss_expm ec;
  if (!ss_expm_init(c, SS_EXPM_FLOOR, &ec)) return false;
  const v128_t one = wasm_f32x4_splat(1.0f);
#define SS_LSE_OUT(v) wasm_f32x4_pmin(one, ss_expm_f32x4((v), &ec)) /* y < 1 ? y : 1 */
  size_t i = 0;
  for (; i + 4 * SS_LSE_UNROLL <= n; i += 4 * SS_LSE_UNROLL) {
    v128_t v[SS_LSE_UNROLL];
#pragma GCC unroll 16
    for (int j = 0; j < SS_LSE_UNROLL; j++) v[j] = SS_LSE_OUT(wasm_v128_load(x + i + 4 * j));
#pragma GCC unroll 16
    for (int j = 0; j < SS_LSE_UNROLL; j++) wasm_v128_store(y + i + 4 * j, v[j]);
  }
  for (; i + 4 <= n; i += 4) wasm_v128_store(y + i, SS_LSE_OUT(wasm_v128_load(x + i)));
  if (i < n) ss_store_partial(y + i, n - i, SS_LSE_OUT(ss_load_partial(x + i, n - i, -INFINITY)));
#undef SS_LSE_OUT
  return true;
}

/* An upper bound on log(theta), theta = FLT_MIN S (1 + 2^-21), S >= 1, at
   most ln 2 above it, without libm's log (a call per row: a fifth of the
   time of 4096 x 64 rows, Node 20): S = f 2^E with f in [1, 2), so log S
   < (E + 1) ln 2; log(FLT_MIN) = -126 ln 2 and log1p(2^-21) < 2^-21. */
static inline double log_theta_bound(double S) {
  uint64_t bits;
  memcpy(&bits, &S, sizeof bits);
  const int E = (int)((bits >> 52) & 0x7ff) - 1023;
  return (double)(E + 1 - 126) * 0x1.62E42FEFA39EFp-1 + 0x1p-21;
}

void ss_softmax_scale_simd(float *y, size_t n, double S, double min_d) {
  const float inv = (float)(1.0 / S);
  /* e >= theta gives e * inv >= FLT_MIN even after the two roundings. */
  const double theta = (double)FLT_MIN * S * (1.0 + 0x1p-21);
  /* Every e is >= theta: the plain scale. The test is conservative (within
     ln 2); a row it sends to the flush loop comes out the same, as no lane
     is then below theta. */
  if (min_d >= log_theta_bound(S) + 1e-5) {
    ss_scale_simd(y, n, inv, y);
    return;
  }
  const v128_t vinv = wasm_f32x4_splat(inv), vth = wasm_f32x4_splat((float)theta);
#define SS_SCALE_FLUSH(k)                                                           \
  do {                                                                              \
    const v128_t e = wasm_v128_load(y + i + (k));                                   \
    wasm_v128_store(y + i + (k), wasm_f32x4_mul(ss_keep(e, wasm_f32x4_ge(e, vth)), vinv)); \
  } while (0)
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    SS_SCALE_FLUSH(0);
    SS_SCALE_FLUSH(4);
    SS_SCALE_FLUSH(8);
    SS_SCALE_FLUSH(12);
  }
  for (; i + 4 <= n; i += 4) SS_SCALE_FLUSH(0);
#undef SS_SCALE_FLUSH
  for (; i < n; i++) y[i] = y[i] >= (float)theta ? y[i] * inv : 0.0f;
}

/* Not blocked: max, exp and sum over L1-sized blocks, then scale (x read
   from memory once instead of twice) ran 0.80-0.90x as fast as these three
   whole-row passes at 2^20 and 2^22 with blocks of 4096, 16384 and 65536
   floats (V8, this machine): the passes here are bound by arithmetic, and
   the hardware prefetcher streams whole rows well. Nor zigzag (the exp pass
   over its blocks last to first, to start where the max pass left the
   caches): 0.58-0.83x, the prefetcher loses the descending stream. */
void ss_softmax_row_simd(const float *x, size_t n, float max, float min,
                         double beta, float *y) {
  const double S = ss_exp_store_simd(x, n, max, beta, y);
  ss_softmax_scale_simd(y, n, S, beta * ((double)min - (double)max));
}

/* Two rows a and b of softmax, each bit for bit softmax_simd's single call
   (ss_max_min_simd, ss_softmax_row_simd with beta = 1: the same exps, the
   same order of the sums, the same scale), interleaved step by step: a
   short row is a chain of dependent steps (max -> its exp constants -> the
   sum -> 1 / S -> the scale), and two independent chains fill the CPU's
   pipeline where one leaves it waiting. The max passes run side by side;
   the exp passes one after the other (side by side, both rows' exp
   constants spill: slower from n = 512). V8 (Node 20, x64), relaxed build,
   rows of 64: 1.25 -> 1.07 ns per element; of 16: 3.1 -> 2.6; from 4096
   the same. Returns false, having written
   nothing, when a row's max is not finite or outside ss_expm's range (the
   caller then runs the rows one by one). */
bool ss_softmax_pair_simd(const float *xa, const float *xb, size_t n, float *ya, float *yb) {
  max_min_acc ma = max_min_start(), mb = max_min_start();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    max_min_16(&ma, xa + i);
    max_min_16(&mb, xb + i);
  }
  max_min_rest(&ma, xa, i, n);
  max_min_rest(&mb, xb, i, n);
  float mina, minb;
  const float maxa = max_min_finish(&ma, &mina), maxb = max_min_finish(&mb, &minb);
  if (ss_classify_max(maxa) != SS_OK || ss_classify_max(maxb) != SS_OK) return false;
  exp_row ra, rb;
  if (!ss_expm_init(maxa, SS_EXPM_ONE, &ra.m) || !ss_expm_init(maxb, SS_EXPM_ONE, &rb.m))
    return false;
  const double Sa = exp_store(xa, n, &ra, EXP_M, ya);
  const double Sb = exp_store(xb, n, &rb, EXP_M, yb);
  ss_softmax_scale_simd(ya, n, Sa, (double)mina - (double)maxa);
  ss_softmax_scale_simd(yb, n, Sb, (double)minb - (double)maxb);
  return true;
}

void ss_softmax_vjp_core_simd(const float *y, const float *g, size_t n,
                              float beta, float *dx) {
  const float dot = (float)ss_dot_simd(g, y, n);
  const v128_t vdot = wasm_f32x4_splat(dot), vbeta = wasm_f32x4_splat(beta);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t vy = wasm_v128_load(y + i);
    const v128_t d = wasm_f32x4_sub(wasm_v128_load(g + i), vdot);
    wasm_v128_store(dx + i, wasm_f32x4_mul(wasm_f32x4_mul(vy, vbeta), d));
  }
  for (; i < n; i++) dx[i] = y[i] * beta * (g[i] - dot);
}

ss_status ss_softmax_vjp_simd(const float *x, const float *y, const float *g,
                              size_t n, const double *params, float *dx) {
  (void)x;
  (void)params;
  ss_softmax_vjp_core_simd(y, g, n, 1.0f, dx);
  return SS_OK;
}

#endif /* SS_HAVE_SIMD */
