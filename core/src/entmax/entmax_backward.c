/*
 * Backward passes of alpha-entmax, from the output y alone.
 *
 * VJP w.r.t. the scores z (Peters et al. 2019, Prop. 2): on the support,
 *   s_i = y_i^{2-alpha},  gbar = sum s g / sum s,  dz_i = s_i (g_i - gbar),
 * and dz_i = 0 off it (J = diag(s) - s s^T / sum s). With z = c x the kernels
 * return dx = c dz.
 *
 * Gradient w.r.t. alpha (Correia, Niculae & Martins 2019, appendix; derived
 * again here). With a = alpha - 1, u_i = a z_i - tau, p_i = u_i^{1/a}:
 *   d log p_i / d alpha = -log(u_i) / a^2 + (z_i - tau') / u_i / a
 *   => dp_i/dalpha = [s_i (z_i - tau') - p_i log p_i] / a,
 * and sum_i dp_i/dalpha = 0 fixes tau' = (sum s z - sum p log p) / sum s.
 * Eliminating z through a z_i = tau + p_i^a gives their form
 *   dp_i/dalpha = (p_i - s~_i) / a^2 + (h_i - s~_i H) / a,
 *   s~ = s / sum s, h_i = -p_i log p_i, H = sum h,
 * and since sum_i dp_i/dalpha = 0, g may be shifted by gbar (which makes the
 * s~ terms vanish):
 *   dalpha = sum_i g_i dp_i/dalpha = sum_i (g_i - gbar) p_i (1 - a log p_i) / a^2.
 * For the ASEntmax scale c: dy/dc = J x, so dc = sum_i dz_i (x_i - max x)
 * (the shift is free because sum dz = 0).
 * Conditioning: both terms of dalpha are O(1/a) and cancel to O(1). Since
 * sum_i (g_i - gbar) s_i = 0 exactly (the definition of gbar) and
 * s_i = y_i e^{-a L_i} (L = log y, alpha < 2), the cancelling part can be
 * taken out analytically:
 *   dalpha = sum_i (g_i - gbar) y_i (1 - a L_i - e^{-a L_i}) / a^2
 *          = sum_i (g_i - gbar) y_i L_i^2 psi(a L_i),
 *   psi(t) = (1 - t - e^{-t}) / t^2 = -1/2 + t/6 - t^2/24 + ...,
 * whose terms are O(1) for every a: alpha -> 1 keeps its digits (the limit
 * is -1/2 sum (g - gbar) y log^2 y) instead of losing them as eps/a^2, which
 * gave +-1e23 at alpha = 1 + 2^-52. Used for a < 1/2 (in double in both
 * impls); above, the direct form has no cancellation to speak of.
 *
 * alpha > 2: s = y^{2-alpha} grows without bound as y -> 0; gbar is taken
 * with s scaled by its largest value (s^ = (y / y_min)^{2-alpha} <= 1), and
 * dz_i itself may overflow float for tiny y (the true value is that large).
 * alpha = 2 (s = 1 on the support) and alpha = 1.5 (s = sqrt y) are closed
 * forms; otherwise s = exp((2 - alpha) log y) with the vector exp/log.
 */
#include <math.h>

#include "common/exp_simd.h"
#include "common/log_simd.h"
#include "common/vec_simd.h"
#include "entmax/entmax_internal.h"

/* ---- scalar reference ------------------------------------------------- */

static double s_f64(double y, double alpha) {
  if (alpha == 2.0) return 1.0;
  if (alpha == 1.5) return sqrt(y);
  return pow(y, 2.0 - alpha);
}

/* gbar = sum s g / sum s over y > 0 (scaled by y_min for alpha > 2). */
static double gbar_f64(const float *y, const float *g, size_t n, double alpha) {
  double ymin = 1.0;
  if (alpha > 2.0)
    for (size_t i = 0; i < n; i++)
      if (y[i] > 0.0f && y[i] < ymin) ymin = y[i];
  double S = 0.0, SG = 0.0;
  for (size_t i = 0; i < n; i++) {
    if (!(y[i] > 0.0f)) continue;
    const double s = alpha > 2.0 ? pow(ymin / y[i], alpha - 2.0) : s_f64(y[i], alpha);
    S += s;
    SG += s * g[i];
  }
  return S > 0.0 ? SG / S : 0.0;
}

void ss_em_vjp_scalar(const float *y, const float *g, size_t n, double alpha,
                      double c, float *dx) {
  const double gbar = gbar_f64(y, g, n, alpha);
  for (size_t i = 0; i < n; i++) {
    const double diff = (double)g[i] - gbar;
    dx[i] = y[i] > 0.0f && diff != 0.0 ? (float)(c * s_f64(y[i], alpha) * diff) : 0.0f;
  }
}

/* psi(t) = (1 - t - e^{-t}) / t^2 for t = a log y <= 0 (see above). */
static double psi(double t) {
  if (fabs(t) < 1e-3) return -0.5 + t * (1.0 / 6.0 + t * (-1.0 / 24.0 + t / 120.0));
  return -(expm1(-t) + t) / (t * t);
}

/* dalpha for a = alpha - 1 < 1/2, in the cancellation-free form. */
static double dalpha_near_one(const float *y, const float *g, size_t n, double a, double gbar) {
  double da = 0.0;
  for (size_t i = 0; i < n; i++) {
    if (!(y[i] > 0.0f)) continue;
    const double yi = y[i], L = log(yi);
    da += ((double)g[i] - gbar) * yi * (L * L) * psi(a * L);
  }
  return da;
}

void ss_em_param_scalar(const float *x, const float *y, const float *g,
                        size_t n, double alpha, double *dalpha, double *dc) {
  const double a = alpha - 1.0, gbar = gbar_f64(y, g, n, alpha);
  double da = 0.0, m = -INFINITY, sc = 0.0;
  for (size_t i = 0; i < n; i++) {
    if (!(y[i] > 0.0f)) continue;
    const double yi = y[i];
    if (a >= 0.5) da += ((double)g[i] - gbar) * yi * (1.0 - a * log(yi));
    if (x[i] > m) m = x[i];
  }
  *dalpha = a < 0.5 ? dalpha_near_one(y, g, n, a, gbar) : da / (a * a);
  if (!dc) return;
  for (size_t i = 0; i < n; i++) {
    const double diff = (double)g[i] - gbar;
    if (y[i] > 0.0f && diff != 0.0 && isfinite(x[i]))
      sc += s_f64(y[i], alpha) * diff * ((double)x[i] - m);
  }
  *dc = sc;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

typedef struct em_bw {
  float alpha;
  v128_t zero, one, e_lo, e_hi, lymin; /* e: exponents (2-alpha), (alpha-2) */
  ss_exp_consts ec;
} em_bw;

/* Weight s^ of four outputs for gbar (0 off the support; <= 1). */
static inline v128_t s_hat(v128_t vy, const em_bw *B, v128_t *in) {
  *in = wasm_f32x4_gt(vy, B->zero);
  v128_t s;
  if (B->alpha == 2.0f) {
    s = B->one;
  } else if (B->alpha == 1.5f) {
    s = wasm_f32x4_sqrt(vy);
  } else if (!wasm_v128_any_true(*in)) {
    s = B->zero; /* no support entry: skip the log and exp */
  } else {
    /* y = 0 lanes take 1: no log of 0 or of a denormal (slow on x86) */
    const v128_t ly = ss_log_pos_f32x4(wasm_v128_bitselect(vy, B->one, *in));
    /* alpha < 2: y^{2-alpha}; alpha > 2: (y_min / y)^{alpha-2} */
    const v128_t e = B->alpha < 2.0f ? wasm_f32x4_mul(B->e_lo, ly)
                                     : wasm_f32x4_mul(B->e_hi, wasm_f32x4_sub(B->lymin, ly));
    s = ss_exp_nonpos_f32x4(e, &B->ec);
  }
  return wasm_v128_and(s, *in);
}

/* Unscaled s = y^{2-alpha} of four outputs (may be +Inf for alpha > 2). */
static inline v128_t s_full(v128_t vy, const em_bw *B) {
  if (B->alpha <= 2.0f) {
    v128_t in;
    return s_hat(vy, B, &in);
  }
  const v128_t in = wasm_f32x4_gt(vy, B->zero);
  if (!wasm_v128_any_true(in)) return B->zero;
  const v128_t ly = ss_log_pos_f32x4(wasm_v128_bitselect(vy, B->one, in));
  const v128_t r = ss_exp_nonpos_f32x4(wasm_f32x4_mul(B->e_hi, ly), &B->ec); /* y^{alpha-2} */
  return wasm_f32x4_div(B->one, r);
}

static float min_positive_simd(const float *y, size_t n) {
  v128_t m = wasm_f32x4_splat(1.0f);
  const v128_t zero = wasm_f32x4_splat(0.0f), big = wasm_f32x4_splat(1.0f);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t v = wasm_v128_load(y + i);
    m = wasm_f32x4_pmin(m, wasm_v128_bitselect(v, big, wasm_f32x4_gt(v, zero)));
  }
  float r[4];
  wasm_v128_store(r, m);
  float best = fminf(fminf(r[0], r[1]), fminf(r[2], r[3]));
  for (; i < n; i++)
    if (y[i] > 0.0f && y[i] < best) best = y[i];
  return best;
}

static em_bw bw_consts(const float *y, size_t n, double alpha) {
  em_bw B;
  B.alpha = (float)alpha;
  B.zero = wasm_f32x4_splat(0.0f);
  B.one = wasm_f32x4_splat(1.0f);
  B.e_lo = wasm_f32x4_splat((float)(2.0 - alpha));
  B.e_hi = wasm_f32x4_splat((float)(alpha - 2.0));
  B.lymin = B.zero;
  if (alpha > 2.0) {
    const float lm = logf(min_positive_simd(y, n));
    B.lymin = wasm_f32x4_splat(lm);
  }
  B.ec = ss_exp_consts_load();
  return B;
}

/* gbar is dominated by the entry of largest s when one s is far above the
   others (alpha > 2: the smallest y), and then g_i - gbar cancels for that
   entry while dx_i = s_i (g_i - gbar) multiplies the cancellation error by a
   large s_i (1.5 % off at alpha = 5.3 in float). So the SIMD path subtracts
   the reference g_r of that entry first: g_i - gbar = (g_i - g_r) - gbar_r,
   gbar_r = sum s (g - g_r) / sum s, whose dominant term is exactly 0. */
static size_t ref_index(const float *y, size_t n, double alpha) {
  size_t r = 0;
  for (size_t i = 1; i < n; i++)
    if (alpha > 2.0 ? (y[i] > 0.0f && (!(y[r] > 0.0f) || y[i] < y[r])) : y[i] > y[r]) r = i;
  return r;
}

/* gbar_r (above) with block sums into double; the tail is a partial vector. */
static double gbar_simd(const float *y, const float *g, size_t n, const em_bw *B, float gr) {
  const v128_t vgr = wasm_f32x4_splat(gr);
  double S = 0.0, SG = 0.0;
  size_t i = 0;
  while (i < n) {
    const size_t end = n - i > SS_SUM_BLOCK ? i + SS_SUM_BLOCK : n;
    v128_t as = B->zero, ag = B->zero, in;
    for (; i + 4 <= end; i += 4) {
      const v128_t s = s_hat(wasm_v128_load(y + i), B, &in);
      as = wasm_f32x4_add(as, s);
      ag = wasm_f32x4_add(ag, wasm_f32x4_mul(s, wasm_f32x4_sub(wasm_v128_load(g + i), vgr)));
    }
    if (i < end) {
      const size_t rem = end - i;
      const v128_t s = s_hat(ss_load_partial(y + i, rem, 0.0f), B, &in);
      as = wasm_f32x4_add(as, s);
      ag = wasm_f32x4_add(ag, wasm_f32x4_mul(s, wasm_f32x4_sub(ss_load_partial(g + i, rem, 0.0f), vgr)));
      i = end;
    }
    S += ss_hsum_f64(as);
    SG += ss_hsum_f64(ag);
  }
  return S > 0.0 ? SG / S : 0.0;
}

/* dz = s (g - gbar) on the support, exactly 0 where g == gbar or off it. */
/* s (g - gbar) with g - gbar = (g - g_r) - gbar_r (vgr, vgbar: see ref_index). */
static inline v128_t dz_lane(v128_t vy, v128_t vg, v128_t vgr, v128_t vgbar, const em_bw *B) {
  const v128_t diff = wasm_f32x4_sub(wasm_f32x4_sub(vg, vgr), vgbar);
  const v128_t keep = wasm_v128_and(wasm_f32x4_gt(vy, B->zero), wasm_f32x4_ne(diff, B->zero));
  return wasm_v128_and(wasm_f32x4_mul(s_full(vy, B), diff), keep);
}

/* Gradients beyond 2^100 in magnitude: g - g_r and its products leave
   float's range inside the lanes while the result may be finite; the
   double scalar routines take them (the same answer, and the same status
   through ss_normalize_vjp's check of the result). */
static bool huge_g(const float *g, size_t n) {
  const v128_t lim = wasm_f32x4_splat(0x1p100f);
  v128_t big = wasm_i32x4_splat(0);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) big = wasm_v128_or(big, wasm_f32x4_gt(wasm_f32x4_abs(wasm_v128_load(g + i)), lim));
  bool any = wasm_v128_any_true(big);
  for (; i < n; i++) any |= fabsf(g[i]) > 0x1p100f;
  return any;
}

void ss_em_vjp_simd(const float *y, const float *g, size_t n, double alpha,
                    double c, float *dx) {
  if (huge_g(g, n)) {
    ss_em_vjp_scalar(y, g, n, alpha, c, dx);
    return;
  }
  const em_bw B = bw_consts(y, n, alpha);
  const float gr = g[ref_index(y, n, alpha)];
  const v128_t vgr = wasm_f32x4_splat(gr);
  const v128_t vgbar = wasm_f32x4_splat((float)gbar_simd(y, g, n, &B, gr));
  const v128_t vc = wasm_f32x4_splat((float)c);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t dz = dz_lane(wasm_v128_load(y + i), wasm_v128_load(g + i), vgr, vgbar, &B);
    wasm_v128_store(dx + i, wasm_f32x4_mul(vc, dz));
  }
  if (i < n) {
    const size_t rem = n - i;
    const v128_t dz = dz_lane(ss_load_partial(y + i, rem, 0.0f), ss_load_partial(g + i, rem, 0.0f),
                              vgr, vgbar, &B);
    ss_store_partial(dx + i, rem, wasm_f32x4_mul(vc, dz));
  }
}

void ss_em_param_simd(const float *x, const float *y, const float *g, size_t n,
                      double alpha, double *dalpha, double *dc) {
  if (huge_g(g, n)) {
    ss_em_param_scalar(x, y, g, n, alpha, dalpha, dc);
    return;
  }
  const double a = alpha - 1.0;
  const em_bw B = bw_consts(y, n, alpha);
  const float gr = g[ref_index(y, n, alpha)];
  const double gbar_r = gbar_simd(y, g, n, &B, gr), gbar64 = (double)gr + gbar_r;
  const float gb = (float)gbar_r;
  const v128_t vgr = wasm_f32x4_splat(gr);
  const v128_t vgbar = wasm_f32x4_splat(gb), va = wasm_f32x4_splat((float)a);
  const v128_t ninf = wasm_f32x4_splat(-INFINITY);
  double da = 0.0;
  v128_t vm = ninf;
  size_t i = 0;
  while (i < n) {
    const size_t end = n - i > SS_SUM_BLOCK ? i + SS_SUM_BLOCK : n;
    v128_t acc = B.zero;
    for (; i + 4 <= end; i += 4) {
      const v128_t vy = wasm_v128_load(y + i);
      const v128_t in = wasm_f32x4_gt(vy, B.zero);
      const v128_t ly = ss_log_pos_f32x4(wasm_v128_bitselect(vy, B.one, in));
      const v128_t w = wasm_f32x4_mul(vy, wasm_f32x4_sub(B.one, wasm_f32x4_mul(va, ly)));
      const v128_t t = wasm_f32x4_mul(wasm_f32x4_sub(wasm_f32x4_sub(wasm_v128_load(g + i), vgr), vgbar), w);
      acc = wasm_f32x4_add(acc, wasm_v128_and(t, in));
      vm = wasm_f32x4_pmax(vm, wasm_v128_bitselect(wasm_v128_load(x + i), ninf, in));
    }
    da += ss_hsum_f64(acc);
    for (; i < end; i++) { /* tail (< 4) in double */
      if (!(y[i] > 0.0f)) continue;
      da += (((double)g[i] - gr) - gb) * y[i] * (1.0 - a * log((double)y[i]));
      vm = wasm_f32x4_pmax(vm, wasm_f32x4_splat(x[i]));
    }
  }
  /* near alpha = 1 the float sum above cancels: the double form instead */
  *dalpha = a < 0.5 ? dalpha_near_one(y, g, n, a, gbar64) : da / (a * a);
  if (!dc) return;
  float mm[4];
  wasm_v128_store(mm, vm);
  const float m = fmaxf(fmaxf(mm[0], mm[1]), fmaxf(mm[2], mm[3]));
  const v128_t vmax = wasm_f32x4_splat(m);
  double sc = 0.0;
  i = 0;
  while (i < n) {
    const size_t end = n - i > SS_SUM_BLOCK ? i + SS_SUM_BLOCK : n;
    v128_t acc = B.zero;
    for (; i + 4 <= end; i += 4) {
      const v128_t dz = dz_lane(wasm_v128_load(y + i), wasm_v128_load(g + i), vgr, vgbar, &B);
      const v128_t xs = wasm_f32x4_sub(wasm_v128_load(x + i), vmax);
      /* off the support dz = 0 but x - m may be -Inf */
      acc = wasm_f32x4_add(acc, wasm_v128_and(wasm_f32x4_mul(dz, xs),
                                              wasm_f32x4_ne(dz, B.zero)));
    }
    sc += ss_hsum_f64(acc);
    for (; i < end; i++) {
      const double diff = ((double)g[i] - gr) - gb;
      if (y[i] > 0.0f && diff != 0.0 && isfinite(x[i]))
        sc += s_f64(y[i], alpha) * diff * ((double)x[i] - m);
    }
  }
  *dc = sc;
}

#endif /* SS_HAVE_SIMD */
