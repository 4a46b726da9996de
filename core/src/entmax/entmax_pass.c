/*
 * The O(n) passes of alpha-entmax: prep (validate, d_i = A (x_i - m) into y,
 * count the unmasked entries), eval (sum p, sum p/u, sum p/u^2 at one
 * threshold, plus the support entries nearest to a change for alpha > 2),
 * finish (p into y over d, divide by the sum).
 *
 * Both implementations start from the same float d_i (same float ops), so
 * they differ only in the evaluation:
 *  - scalar reference: u, p in double (log1p / pow), sums in double.
 *  - SIMD128: the threshold as two float pairs, t = -theta and
 *    phi = 1 + theta (= 1 - t), and per entry the form that keeps u
 *    accurate (a plain float theta would leave u a multiple of
 *    ulp(theta), which at alpha = 10 moves p by 0.1):
 *      u = (d + t_hi) + t_lo                      where u < 1/2 (exact where
 *          d is within 2x of -t; one form alone measured a 9e-6 error in
 *          sum p at alpha = 4, u = 1.7e-6), else
 *      w = (d - phi_hi) - phi_lo, u = 1 + w, and c = w - (u - 1), the exact
 *          rounding error of u (|w| <= 1/2 here; for alpha -> 1, k is large
 *          and p needs log1p(w), not log of the rounded u: k 2^-24 in p).
 *    Then (c = 0 for the first form)
 *      alpha = 2:   p = u + c
 *      alpha = 1.5: p = u^2 + 2 u c       ((u + c)^2 to first order)
 *      otherwise:   p = exp(k (log u + c / u))
 *    with the vector exp/log of common/; lanes with u <= 0 (including -Inf
 *    masked and padding lanes) take u = 1 into the log and give p = 0.
 *    The iteration's sums: float blocks of 64 entries over 8 lanes, blocks
 *    into double. The final sum p, which y is divided by, in f64x2 lanes
 *    (float adds of equal p round the same way: 16 of them per lane had
 *    put 2e-7 into sum y with 30000 ties).
 *    When t < 2^-100 (alpha >= 2 and near-exact ties only) the pair's low
 *    part would be denormal and the pair no better than one float: the SIMD
 *    path then runs the double pass (measured with 30000 tied maxima at
 *    alpha = 10: 10 Halley passes as the scalar, 14 without it).
 * The scalar reference picks the same two forms in double (u >= 1/2:
 * exp(k log1p(w)), else pow(d + t, k)).
 *
 * Exact zeros (the support), one rule for both impls: finish writes p_i = 0
 * where u_i <= cut, the threshold's resolution at tol (support_cut). The
 * iteration stops at |f| <= tol, f = sum p - 1, and f' = k sum u^(k-1) >=
 * k S / t (every u <= t, S = sum p ~ 1), so theta is within tol a t of
 * the root (a = alpha - 1); and an entry with u > 0 where its exact u is 0
 * means theta below the root, every p above its exact value, so p_i <= f
 * <= tol, u_i <= tol^a. With tol' = 2 max(tol, 2^-20) (the SIMD lanes' sum
 * error, and SIMD's own stop at tol = 0):
 *   cut = min(tol' a t, tol'^a).
 * An entry exactly at the threshold (p = 0 exactly: ties, e.g. four maxima
 * at alpha = 1.5 put it 1/2 below them) thus comes out +0 in every impl;
 * before, each impl's solver stopped on its own side of it (asentmax,
 * beta = 1.59e-9, ties, n = 17: scalar 0, SIMD 5.9e-17). What the cut can
 * drop is p <= tol' (alpha > 2) and p <= (tol' a t)^k <= tol' p_max
 * (alpha <= 2, p_max = t^k): within the solver's own error. The impls can
 * still differ on an entry whose exact u is within theta's error of the
 * cut itself, which no exact tie puts there.
 */
#include <float.h>
#include <math.h>

#include "common/check.h"
#include "common/exp_simd.h"
#include "common/flush.h"
#include "common/log_simd.h"
#include "common/vec_simd.h"
#include "entmax/entmax_internal.h"

#define SS_EM_F64_BELOW 0x1p-100
/* Float block length of the iteration's sums: 64 entries over 8 lanes is 8
   float adds per lane before a double add (relative error <= 8 2^-24 even
   when the adds round the same way, as for equal p; measured ~1e-8). */
#define EM_BLOCK 64

static void fill_problem(ss_em_problem *pr, float *y, size_t n, size_t n_eff,
                         float A, float m) {
  pr->d = y;
  pr->n = n;
  pr->n_eff = n_eff;
  pr->amax = A;
  pr->max = m;
}

/* ---- scalar reference ------------------------------------------------- */

ss_status ss_em_prep_scalar(const float *x, size_t n, double A, float *y,
                            ss_em_problem *pr) {
  float m;
  ss_status s = ss_check_logits(x, n, &m);
  if (s != SS_OK) return s;
  const float af = (float)A;
  size_t n_eff = 0;
  for (size_t i = 0; i < n; i++) {
    const float diff = x[i] - m; /* -Inf when masked (or overflowing) */
    y[i] = diff == -INFINITY ? -INFINITY : af * diff;
    n_eff += x[i] != -INFINITY;
  }
  fill_problem(pr, y, n, n_eff, af, m);
  return SS_OK;
}

/* t = -theta and phi = 1 + theta of a solver value. */
static inline void t_phi(const ss_em_problem *pr, double v, double *t, double *phi) {
  *t = pr->tcoord ? v : 1.0 - v;
  *phi = pr->tcoord ? 1.0 - v : v;
}

/* The support cut at solver value v (see above); 0 for the iteration. */
static double support_cut(const ss_em_problem *pr, double v, double tol) {
  double t, phi;
  t_phi(pr, v, &t, &phi);
  const double r = 2.0 * fmax(tol, 0x1p-20);
  const double cut = fmin(r * pr->a * t, pow(r, pr->a));
  return cut > 0.0 ? cut : 0.0;
}

/* u and p of one entry in double; false outside the support (u <= cut). */
static inline bool point_f64(const ss_em_problem *pr, double di, double t, double phi,
                             double cut, double *u, double *p) {
  *u = di + t;
  if (!(*u > cut)) return false;
  const bool near1 = *u >= 0.5;
  const double w = di - phi;
  if (near1) *u = 1.0 + w;
  if (pr->kind == SS_EM_LINEAR) *p = *u;
  else if (pr->kind == SS_EM_SQUARE) *p = *u * *u;
  else *p = near1 ? exp(pr->k * log1p(w)) : pow(*u, pr->k);
  return true;
}

void ss_em_eval_f64(const ss_em_problem *pr, double v, bool derivs,
                    ss_em_sums *out) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0;
  double umin = INFINITY, umin_c = 0.0, uout = -INFINITY, uout_c = 0.0;
  double t, phi;
  t_phi(pr, v, &t, &phi);
  for (size_t i = 0; i < pr->n; i++) {
    const double di = pr->d[i];
    if (di == -INFINITY) continue;
    double u, p;
    if (!point_f64(pr, di, t, phi, 0.0, &u, &p)) {
      if (u > uout) {
        uout = u;
        uout_c = 0.0;
      }
      if (u == uout) uout_c += 1.0;
      continue;
    }
    s0 += p;
    if (!derivs) continue;
    s1 += p / u;
    s2 += pr->kind == SS_EM_LINEAR ? 0.0 : p / (u * u);
    if (u < umin) {
      umin = u;
      umin_c = 0.0;
    }
    if (u == umin) umin_c += 1.0;
  }
  *out = (ss_em_sums){s0, s1, s2, umin, umin_c, uout, uout_c};
}

void ss_em_finish_f64(const ss_em_problem *pr, double v, double tol, float *y) {
  double sum = 0.0, t, phi;
  t_phi(pr, v, &t, &phi);
  const double cut = support_cut(pr, v, tol);
  for (size_t i = 0; i < pr->n; i++) {
    double u, p = 0.0;
    if (pr->d[i] == -INFINITY || !point_f64(pr, pr->d[i], t, phi, cut, &u, &p)) p = 0.0;
    y[i] = (float)p; /* over d_i: each p_i needs only its own d_i */
    sum += y[i];
  }
  const double inv = 1.0 / sum; /* sum >= 2^-26: p_max >= 1/n_eff */
  ss_scale_flush_scalar(y, pr->n, inv);
}

/* The end of an iteration that could not reach |sum p - 1| <= tol: some
   entry sits so close to the threshold that one ulp of the solver value
   moves its p by more than tol (alpha - 1 = 9: u^(1/9) jumps from 0 to
   (2^-52)^(1/9) ~ 0.018 across one ulp of theta), so no double theta gives
   the true p there. Dividing by the sum then spreads the whole deficit over
   the resolved entries, and the scalar and SIMD iterations, ending one ulp
   apart, disagreed by that much (0.018 on asentmax at alpha = 10). Instead
   the resolved entries keep their p (accurate) and the unresolved ones
   share the deficit 1 - sum(resolved): exact when one entry is unresolved,
   the even split of what double precision cannot tell apart otherwise.
   Shared (double) code for both impls; returns false (nothing written)
   when the sum is resolved or no entry is to blame. */
bool ss_em_finish_unresolved(const ss_em_problem *pr, double v, double tol, float *y) {
  double t, phi;
  t_phi(pr, v, &t, &phi);
  const double thr = tol > 0x1p-24 ? tol : 0x1p-24;
  /* u's resolution: a few ulps of the solver value and of t; an entry is
     unresolved when its u is within it of 0 and p jumps by more than thr
     across it (never for alpha <= 2: p = u^k with k >= 1 is then smooth) */
  const double res = 64.0 * 0x1p-52 * (fabs(v) + fabs(t)) + 0x1p-1000;
  if (pr->k >= 1.0 || pow(res, pr->k) <= thr) return false;
  const double cut = support_cut(pr, v, tol); /* below res here: alpha > 2 */
  double sum = 0.0, resolved = 0.0;
  size_t nu = 0;
  for (size_t i = 0; i < pr->n; i++) {
    const double di = pr->d[i];
    if (di == -INFINITY) continue;
    double u, p = 0.0;
    if (!point_f64(pr, di, t, phi, cut, &u, &p)) p = 0.0;
    sum += p;
    if (u < res && u > -res) nu++;
    else resolved += p;
  }
  if (fabs(sum - 1.0) <= thr || nu == 0) return false;
  const double share = resolved < 1.0 ? (1.0 - resolved) / (double)nu : 0.0;
  double total = 0.0;
  for (size_t i = 0; i < pr->n; i++) {
    const double di = pr->d[i];
    double u, p = 0.0;
    if (di != -INFINITY && !point_f64(pr, di, t, phi, cut, &u, &p)) p = 0.0;
    if (di != -INFINITY && u < res && u > -res) p = share;
    y[i] = (float)p; /* over d_i, as in finish */
    total += y[i];
  }
  ss_scale_flush_scalar(y, pr->n, 1.0 / total);
  return true;
}

/* ---- SIMD128 ------------------------------------------------------------ */
#if SS_HAVE_SIMD

ss_status ss_em_prep_simd(const float *x, size_t n, double A, float *y,
                          ss_em_problem *pr) {
  const float m = ss_max_simd(x, n);
  ss_status s = ss_classify_max(m);
  if (s != SS_OK) return s;
  const float af = (float)A;
  const v128_t vm = wasm_f32x4_splat(m), va = wasm_f32x4_splat(af);
  const v128_t ninf = wasm_f32x4_splat(-INFINITY);
  v128_t cnt = wasm_i32x4_splat(0);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t vx = wasm_v128_load(x + i);
    const v128_t diff = wasm_f32x4_sub(vx, vm);
    const v128_t masked = wasm_f32x4_eq(diff, ninf);
    wasm_v128_store(y + i, wasm_v128_bitselect(ninf, wasm_f32x4_mul(va, diff), masked));
    cnt = wasm_i32x4_sub(cnt, wasm_f32x4_ne(vx, ninf)); /* true lanes are -1 */
  }
  size_t n_eff = (size_t)(uint32_t)wasm_i32x4_extract_lane(cnt, 0) +
                 (uint32_t)wasm_i32x4_extract_lane(cnt, 1) +
                 (uint32_t)wasm_i32x4_extract_lane(cnt, 2) +
                 (uint32_t)wasm_i32x4_extract_lane(cnt, 3);
  for (; i < n; i++) { /* the same float ops as the vector body */
    const float diff = x[i] - m;
    y[i] = diff == -INFINITY ? -INFINITY : af * diff;
    n_eff += x[i] != -INFINITY;
  }
  fill_problem(pr, y, n, n_eff, af, m);
  return SS_OK;
}

typedef struct em_lane {
  v128_t thi, tlo, phi_hi, phi_lo, k, one, zero, half, cut;
  ss_exp_consts ec;
} em_lane;

/* cut: the support cut (finish), 0 (iteration). */
static inline em_lane lane_consts(const ss_em_problem *pr, double v, double cut) {
  em_lane L;
  double t, phi;
  t_phi(pr, v, &t, &phi);
  const float th = (float)t, ph = (float)phi;
  L.thi = wasm_f32x4_splat(th);
  L.tlo = wasm_f32x4_splat((float)(t - (double)th));
  L.phi_hi = wasm_f32x4_splat(ph);
  L.phi_lo = wasm_f32x4_splat((float)(phi - (double)ph));
  L.k = wasm_f32x4_splat((float)pr->k);
  L.one = wasm_f32x4_splat(1.0f);
  L.zero = wasm_f32x4_splat(0.0f);
  L.half = wasm_f32x4_splat(0.5f);
  L.cut = wasm_f32x4_splat((float)cut);
  L.ec = ss_exp_consts_load();
  return L;
}

/* p of four entries (0 outside the support); *u = u (1 outside the support),
   *in = support mask, *uraw = u. kind is a constant after inlining. */
static inline v128_t lane_p(v128_t d, const em_lane *L, ss_em_kind kind, v128_t *u,
                            v128_t *in, v128_t *uraw) {
  const v128_t ud = wasm_f32x4_add(wasm_f32x4_add(d, L->thi), L->tlo);
  const v128_t w = wasm_f32x4_sub(wasm_f32x4_sub(d, L->phi_hi), L->phi_lo);
  const v128_t u1 = wasm_f32x4_add(L->one, w);
  const v128_t near1 = wasm_f32x4_ge(ud, L->half);
  const v128_t uu = wasm_v128_bitselect(u1, ud, near1);
  const v128_t mask = wasm_f32x4_gt(uu, L->cut);
  /* the rounding error of 1 + w where that form is used (NaN on -Inf
     lanes, which are outside) */
  const v128_t c = wasm_v128_and(wasm_f32x4_sub(w, wasm_f32x4_sub(u1, L->one)),
                                 wasm_v128_and(near1, mask));
  /* Lanes outside the support take u = 1 (log 0, p masked to 0 below):
     no log of a non-positive or denormal value (x86 runs denormal operands
     ~100x slower, and most lanes of a sparse row are outside). */
  const v128_t uc = wasm_v128_bitselect(uu, L->one, mask);
  v128_t p;
  if (kind == SS_EM_LINEAR) {
    p = wasm_f32x4_add(uu, c);
  } else if (kind == SS_EM_SQUARE) {
    p = wasm_f32x4_mul(uu, wasm_f32x4_add(uu, wasm_f32x4_add(c, c)));
  } else if (!wasm_v128_any_true(mask)) {
    /* no support entry in the group (most groups of a sparse row): skip the
       log and exp, as the scalar loop skips pow */
    p = L->zero;
  } else {
    const v128_t lg = wasm_f32x4_add(ss_log_pos_f32x4(uc), wasm_f32x4_div(c, uc));
    p = ss_exp_nonpos_f32x4(wasm_f32x4_mul(L->k, lg), &L->ec);
  }
  *u = uc;
  *in = mask;
  *uraw = uu;
  return wasm_v128_and(p, mask);
}

/* Running min (over support lanes) / max (over the others) with counts. */
typedef struct em_near {
  v128_t umin, cmin, uout, cout;
} em_near;

static inline void near_update(em_near *s, v128_t uraw, v128_t in) {
  const v128_t pinf = wasm_f32x4_splat(INFINITY), ninf = wasm_f32x4_splat(-INFINITY);
  const v128_t one = wasm_f32x4_splat(1.0f);
  const v128_t ui = wasm_v128_bitselect(uraw, pinf, in);
  const v128_t uo = wasm_v128_bitselect(ninf, uraw, in);
  const v128_t lt = wasm_f32x4_lt(ui, s->umin), eqi = wasm_f32x4_eq(ui, s->umin);
  s->cmin = wasm_v128_bitselect(one, wasm_f32x4_add(s->cmin, wasm_v128_and(one, eqi)), lt);
  s->umin = wasm_f32x4_pmin(s->umin, ui);
  const v128_t gt = wasm_f32x4_gt(uo, s->uout), eqo = wasm_f32x4_eq(uo, s->uout);
  s->cout = wasm_v128_bitselect(one, wasm_f32x4_add(s->cout, wasm_v128_and(one, eqo)), gt);
  s->uout = wasm_f32x4_pmax(s->uout, uo);
}

typedef struct em_acc {
  v128_t s0, s1, s2;
} em_acc;

/* acc += p (four floats) in double. */
static inline void add_f64(v128_t *lo, v128_t *hi, v128_t p) {
  *lo = wasm_f64x2_add(*lo, wasm_f64x2_promote_low_f32x4(p));
  *hi = wasm_f64x2_add(*hi, wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(p, p, 2, 3, 0, 1)));
}

static inline double hsum_f64x2(v128_t lo, v128_t hi) {
  const v128_t s = wasm_f64x2_add(lo, hi);
  return wasm_f64x2_extract_lane(s, 0) + wasm_f64x2_extract_lane(s, 1);
}

static inline void acc_add(em_acc *a, v128_t d, const em_lane *L, ss_em_kind kind,
                           bool derivs, bool special, em_near *nr) {
  v128_t u, in, uraw;
  const v128_t p = lane_p(d, L, kind, &u, &in, &uraw);
  a->s0 = wasm_f32x4_add(a->s0, p);
  if (!derivs) return;
  if (kind == SS_EM_LINEAR) {
    a->s1 = wasm_f32x4_add(a->s1, wasm_v128_and(L->one, in));
  } else if (kind == SS_EM_SQUARE) {
    a->s1 = wasm_f32x4_add(a->s1, wasm_v128_and(uraw, in));
    a->s2 = wasm_f32x4_add(a->s2, wasm_v128_and(L->one, in));
  } else {
    const v128_t q = wasm_f32x4_div(p, u);
    a->s1 = wasm_f32x4_add(a->s1, q);
    a->s2 = wasm_f32x4_add(a->s2, wasm_f32x4_div(q, u));
  }
  if (special) near_update(nr, uraw, in);
}

/* Lane-wise reduction of the nearest-entry trackers. */
static void near_reduce(const em_near *s, ss_em_sums *out) {
  float um[4], cm[4], uo[4], co[4];
  wasm_v128_store(um, s->umin);
  wasm_v128_store(cm, s->cmin);
  wasm_v128_store(uo, s->uout);
  wasm_v128_store(co, s->cout);
  double umin = INFINITY, cmin = 0.0, uout = -INFINITY, cout = 0.0;
  for (int j = 0; j < 4; j++) {
    if (um[j] < umin) {
      umin = um[j];
      cmin = 0.0;
    }
    if (um[j] == umin) cmin += cm[j];
    if (uo[j] > uout) {
      uout = uo[j];
      cout = 0.0;
    }
    if (uo[j] == uout) cout += co[j];
  }
  out->umin = umin;
  out->umin_count = umin < INFINITY ? cmin : 0.0;
  out->uout = uout;
  out->uout_count = uout > -INFINITY ? cout : 0.0;
}

static inline void eval_body(const ss_em_problem *pr, const em_lane *L, ss_em_kind kind,
                             bool derivs, bool special, ss_em_sums *out) {
  const float *d = pr->d;
  const size_t n = pr->n;
  em_near nr = {wasm_f32x4_splat(INFINITY), L->zero, wasm_f32x4_splat(-INFINITY), L->zero};
  double s0 = 0.0, s1 = 0.0, s2 = 0.0;
  size_t i = 0;
  while (i < n) {
    const size_t end = n - i > EM_BLOCK ? i + EM_BLOCK : n;
    em_acc a = {L->zero, L->zero, L->zero}, b = a;
    for (; i + 8 <= end; i += 8) {
      acc_add(&a, wasm_v128_load(d + i), L, kind, derivs, special, &nr);
      acc_add(&b, wasm_v128_load(d + i + 4), L, kind, derivs, special, &nr);
    }
    for (; i + 4 <= end; i += 4)
      acc_add(&a, wasm_v128_load(d + i), L, kind, derivs, special, &nr);
    if (i < end) {
      acc_add(&b, ss_load_partial(d + i, end - i, -INFINITY), L, kind, derivs, special, &nr);
      i = end;
    }
    s0 += ss_hsum_f64(wasm_f32x4_add(a.s0, b.s0));
    if (derivs) {
      s1 += ss_hsum_f64(wasm_f32x4_add(a.s1, b.s1));
      s2 += ss_hsum_f64(wasm_f32x4_add(a.s2, b.s2));
    }
  }
  out->s0 = s0;
  out->s1 = s1;
  out->s2 = s2;
  out->umin = INFINITY;
  out->umin_count = 0.0;
  out->uout = -INFINITY;
  out->uout_count = 0.0;
  if (special) near_reduce(&nr, out);
}

static bool needs_f64(const ss_em_problem *pr, double v) {
  return pr->tcoord && v < SS_EM_F64_BELOW;
}

void ss_em_eval_simd(const ss_em_problem *pr, double v, bool derivs,
                     ss_em_sums *out) {
  if (needs_f64(pr, v)) {
    ss_em_eval_f64(pr, v, derivs, out);
    return;
  }
  const em_lane L = lane_consts(pr, v, 0.0);
  /* one specialised loop per (kind, derivs, special): constants below */
  if (!derivs) {
    if (pr->kind == SS_EM_LINEAR) eval_body(pr, &L, SS_EM_LINEAR, false, false, out);
    else if (pr->kind == SS_EM_SQUARE) eval_body(pr, &L, SS_EM_SQUARE, false, false, out);
    else eval_body(pr, &L, SS_EM_GENERAL, false, false, out);
  } else {
    if (pr->kind == SS_EM_LINEAR) eval_body(pr, &L, SS_EM_LINEAR, true, false, out);
    else if (pr->kind == SS_EM_SQUARE) eval_body(pr, &L, SS_EM_SQUARE, true, false, out);
    else if (pr->special) eval_body(pr, &L, SS_EM_GENERAL, true, true, out);
    else eval_body(pr, &L, SS_EM_GENERAL, true, false, out);
  }
}

static inline double finish_body(const ss_em_problem *pr, const em_lane *L, ss_em_kind kind,
                                 float *y) {
  const size_t n = pr->n;
  v128_t lo = wasm_f64x2_splat(0.0), hi = lo, u, in, uraw;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const v128_t p = lane_p(wasm_v128_load(pr->d + i), L, kind, &u, &in, &uraw);
    const v128_t q = lane_p(wasm_v128_load(pr->d + i + 4), L, kind, &u, &in, &uraw);
    wasm_v128_store(y + i, p); /* y is d: in place */
    wasm_v128_store(y + i + 4, q);
    add_f64(&lo, &hi, p);
    add_f64(&lo, &hi, q);
  }
  for (; i + 4 <= n; i += 4) {
    const v128_t p = lane_p(wasm_v128_load(pr->d + i), L, kind, &u, &in, &uraw);
    wasm_v128_store(y + i, p);
    add_f64(&lo, &hi, p);
  }
  if (i < n) {
    const size_t rem = n - i;
    const v128_t p = lane_p(ss_load_partial(pr->d + i, rem, -INFINITY), L, kind, &u, &in, &uraw);
    ss_store_partial(y + i, rem, p);
    add_f64(&lo, &hi, p);
  }
  return hsum_f64x2(lo, hi);
}

void ss_em_finish_simd(const ss_em_problem *pr, double v, double tol, float *y) {
  if (needs_f64(pr, v)) {
    ss_em_finish_f64(pr, v, tol, y);
    return;
  }
  const em_lane L = lane_consts(pr, v, support_cut(pr, v, tol));
  double sum;
  if (pr->kind == SS_EM_LINEAR) sum = finish_body(pr, &L, SS_EM_LINEAR, y);
  else if (pr->kind == SS_EM_SQUARE) sum = finish_body(pr, &L, SS_EM_SQUARE, y);
  else sum = finish_body(pr, &L, SS_EM_GENERAL, y);
  ss_scale_flush_simd(y, pr->n, (float)(1.0 / sum), y);
}

#endif /* SS_HAVE_SIMD */
