/*
 * The alpha-entmax threshold iteration, shared by both implementations (the
 * O(n) pass is a function pointer: double-precision scalar or SIMD128).
 *
 * f(theta) = sum_i [d_i - theta]_+^k - 1 is monotone on the bracket
 * [-1, -n_eff^{-(alpha-1)}] (f >= 0 at the left end, <= 0 at the right), and
 * the iteration keeps an evaluated bracket [v_pos, v_neg] (f > 0, f < 0) of
 * the solver variable v (see entmax_internal.h).
 *
 * Bisection: v = midpoint of the bracket, as deep-spin/entmax's
 *   entmax_bisect does (there with a fixed 50 iterations).
 * Halley (AdaSplash, Goncalves et al. 2025): with f, f' = -k sum p/u and
 *   f'' = k (k-1) sum p/u^2 from the same pass,
 *     v <- v - 2 f f' / (2 f'^2 - f f''),
 *   and the bisection point instead when that leaves the bracket. AdaSplash
 *   starts at the middle of [max - 1, max] and runs a fixed count; here it
 *   starts at the middle of the tighter bracket (so its first pass is
 *   bisection's first pass) and stops by the rule below. That rule alone
 *   (measured, tol 1e-6, Gaussian rows) already takes 3.5-5.5 passes for
 *   alpha <= 2, but fails elsewhere; four additions, each from a measured
 *   failure:
 *   (1) A step beyond an end of the initial bracket that was never evaluated
 *       goes to that end: the one-hot row (root exactly at theta = -1) and
 *       the uniform row (root exactly at the right end) then take one step,
 *       where bisection would only approach the end (before: 20 passes).
 *   (2) alpha > 2 (k < 1): u^k has an infinite slope where u -> 0+, so near a
 *       support change f is no smooth function and Halley's local model fails
 *       (before: up to 20+ passes at alpha = 4, mostly bisection). The pass
 *       also reports the support entries nearest to leaving (smallest u, with
 *       their count c) and the entries nearest to entering (largest u <= 0).
 *       The step then models f as the rest's quadratic Taylor polynomial plus
 *       those entries exactly, c (u_s - dtheta)_+^k, and solves that model in
 *       w = (u_s - dtheta)^k, where it is smooth (a scalar Newton solve, no
 *       pass over the data).
 *   (3) |f| >= 1 (far from the root, any alpha): Newton on log S against
 *       log t (S = sum p = f + 1, t = -theta), i.e. t <- t S^{-1/q} with
 *       q = dlog S / dlog t = t k sum(p/u) / S. It is exact where S ~ t^q: one
 *       entry, ties, a dense top (S ~ t^{k+1}); near alpha = 1 it is Newton
 *       on log S. There Halley on S - 1 creeps, each step reaching only the
 *       next support change: on uniform rows at n = 2^16..2^20, alpha = 3,
 *       before (3) and (4) 34-100 passes (worse than bisection), after 6-7.
 *   (4) When a step leaves the bracket, the fallback is the secant of the
 *       two bracket ends with Illinois weights (the end kept twice in a row
 *       has its f halved), bisection while an end is not evaluated or when
 *       the secant point is not inside. On uniform rows, alpha > 2, this
 *       halves the passes against plain bisection (e.g. 12.5 -> 6.8 at
 *       alpha = 10, n = 2^16). (Forcing that step whenever |f| failed to
 *       halve was tried too: it pre-empted (2) at support changes and was
 *       slower everywhere.)
 *   (5) A safeguard: when 3 passes in a row neither halve the bracket (it
 *       still holds the bisection point of a checkpoint) nor halve |f|, the
 *       next point is the bisection point. At alpha = 10, x = {1e-12, 0,
 *       ..., 0}, n >= 2000 the other 1999 entries enter at one t, where f
 *       jumps from -0.94 to +1999 (u^(1/9) has an infinite slope), and the
 *       steps crept from the f < 0 side by ever smaller secant steps: 100
 *       passes (the cap), one-hot y with SS_OK, y0 1 where the answer is
 *       0.0593 (also alpha = 8, n = 65536). With (5) it converges in 55 passes.
 *       So Halley takes at most ~3x bisection's passes on any row.
 *   (6) Should Halley still reach its cap unconverged, bisection of its
 *       bracket finishes (`fallback`, the registry kernels; at most
 *       SS_EM_FALLBACK_PASSES more, which reaches double resolution from
 *       any bracket), so no registry kernel returns an unconverged y.
 *   The result: 2.3-8 passes on average over Gaussian and uniform rows,
 *   alpha in 1.001..10, n = 2^10..2^20, where bisection takes 19-37.
 * Stopping rule (both solvers): stop as soon as |f| <= tol; else when the
 * next point is an evaluated bracket end, or a Halley step rounds to no
 * change of v (no representable progress left in double) -- these three
 * are convergence (*done); else after max_iter passes (and Halley's
 * fallback), unconverged. The result is the evaluated point of smallest
 * |f|, moved by (7) (a final Halley step from that pass's sums: no extra
 * pass, so the pass counts above are unchanged) when Halley converged; the
 * caller then divides p by its sum (as deep-spin's ensure_sum_one does).
 */
#include <math.h>

#include "entmax/entmax_internal.h"

void ss_em_setup(ss_em_problem *pr, double alpha) {
  pr->alpha = alpha;
  pr->a = alpha - 1.0;
  pr->k = 1.0 / pr->a;
  pr->kind = alpha == 2.0 ? SS_EM_LINEAR : alpha == 1.5 ? SS_EM_SQUARE : SS_EM_GENERAL;
  pr->tcoord = alpha >= 2.0;
  pr->special = alpha > 2.0;
}

void ss_em_bracket(const ss_em_problem *pr, double *v_lo, double *v_hi) {
  /* theta_hi = -n_eff^{-a} = -exp(e): at it every p_i <= 1/n_eff. */
  const double e = -pr->a * log((double)pr->n_eff);
  if (pr->tcoord) {
    *v_lo = exp(e); /* >= 2^-234 for alpha <= 10, n <= 2^26 */
    *v_hi = 1.0;
  } else {
    *v_lo = 0.0;
    *v_hi = -expm1(e);
  }
}

double ss_em_theta(const ss_em_problem *pr, double v) {
  return pr->tcoord ? -v : v - 1.0;
}

/* Halley step of a + b x + c x^2/2 from x = 0. */
static double halley(double f, double f1, double f2) {
  return -2.0 * f * f1 / (2.0 * f1 * f1 - f * f2);
}

/* Root in w of G(w) = A + B r + C r^2 / 2 + cnt w, r = us - w^a, on
   [w0, w1] where G changes sign; NAN when it does not. Newton with a
   bisection safeguard; G is smooth in w. */
static double model_root(double A, double B, double C, double us, double cnt,
                         double a, double w0, double w1) {
  double g0 = 0.0;
  for (int side = 0; side < 2; side++) {
    const double w = side ? w1 : w0, r = us - pow(w, a);
    const double g = A + B * r + 0.5 * C * r * r + cnt * w;
    if (side == 0) g0 = g;
    else if (!(g0 * g <= 0.0)) return NAN;
  }
  double w = 0.5 * (w0 + w1);
  for (int it = 0; it < 100; it++) {
    const double wa = pow(w, a), r = us - wa;
    const double g = A + B * r + 0.5 * C * r * r + cnt * w;
    if (g == 0.0) return w;
    if ((g < 0.0) == (g0 < 0.0)) w0 = w;
    else w1 = w;
    const double dg = cnt - a * (wa / w) * (B + C * r);
    double nw = w - g / dg;
    if (!(nw > fmin(w0, w1) && nw < fmax(w0, w1))) nw = 0.5 * (w0 + w1);
    if (nw == w) return w;
    w = nw;
  }
  return w;
}

/* The alpha > 2 step in theta units (see (2) above); NAN when the model has
   no root (the caller then bisects). theta_pos is the theta of the f > 0
   bracket end. */
static double special_step(const ss_em_problem *pr, const ss_em_sums *s,
                           double f, double f1, double f2, double theta,
                           double theta_pos) {
  const double k = pr->k, a = pr->a;
  if (f > 0.0) {
    /* theta moves right: the entries with the smallest u leave first. */
    const double us = s->umin, cnt = s->umin_count;
    if (!(us > 0.0 && us < INFINITY && cnt >= 1.0)) return NAN;
    const double ps = pow(us, k);
    const double A = f - cnt * ps, B = f1 + cnt * k * ps / us;
    const double C = f2 - cnt * k * (k - 1.0) * ps / (us * us);
    const double mb = A + B * us + 0.5 * C * us * us; /* model at their exit */
    if (mb <= 0.0) {
      const double w = model_root(A, B, C, us, cnt, a, 0.0, ps);
      return w == w ? us - pow(w, a) : NAN;
    }
    const double dr = halley(A, B, C);
    return dr > us ? dr : us;
  }
  /* theta moves left: the entries with the largest u <= 0 enter first. */
  const double us = s->uout, cnt = s->uout_count;
  const double dr = halley(f, f1, f2);
  if (!(us > -INFINITY && cnt >= 1.0) || dr >= us) return dr;
  const double span = us - (theta_pos - theta); /* theta >= theta_pos */
  if (!(span > 0.0)) return NAN;
  const double w = model_root(f, f1, f2, us, cnt, a, 0.0, pow(span, k));
  return w == w ? us - pow(w, a) : NAN;
}

/* The bisection point of [a, b]: the midpoint, or the geometric mean when
   both ends are positive and more than a factor 16 apart. The t coordinate
   (alpha >= 2) spans [n^-(alpha-1), 1], down to 1e-32 for n = 3690 at
   alpha = 10; halving that linearly took 100+ passes (the iteration cap) to
   reach a root near the bottom, and scalar and SIMD stopped at different
   unconverged points (y[0] 0.025 vs 0.22). Geometric steps halve the
   bracket's decades instead: ~log2(log2(range)) + 24 passes. */
static double bisect_point(double a, double b) {
  const double lo = fmin(a, b), hi = fmax(a, b);
  if (lo > 0.0 && hi > 16.0 * lo) return sqrt(lo) * sqrt(hi);
  return 0.5 * (a + b);
}

/* Secant point of the bracket with Illinois weights (the end kept twice in
   a row has its f halved), or the bisection point when that is not
   strictly inside or an end has not been evaluated. */
static double bracket_step(double v_pos, double f_pos, double v_neg, double f_neg) {
  const double mid = bisect_point(v_pos, v_neg);
  if (!(f_pos > 0.0 && f_neg < 0.0)) return mid; /* NAN until evaluated */
  const double c = v_neg - f_neg * (v_pos - v_neg) / (f_pos - f_neg);
  return c > fmin(v_pos, v_neg) && c < fmax(v_pos, v_neg) ? c : mid;
}

/* (7) The final step: Halley from the converged point with the sums its
   pass already has (no pass of its own: the finish evaluates there), when
   it stays strictly inside the bracket and (alpha > 2) crosses no support
   change (|dtheta| below the nearest entry's u on its side). Why: |f| <= tol
   lets an entry whose p/u dominates f' = -k sum p/u (at alpha > 2, the one
   of smallest u) be off by up to tol absolute, and the impls stop at
   different points of that window: at alpha = 10, 21 logits ~1e-12, y[6]
   0.0044630 (scalar) vs 0.0044633 (SIMD), truth 0.0044633, a difference
   past the conformance bound 2^-16 |y| + 2^-18 max y = 2.9e-7 there. The
   step takes the double pass's point to |f| ~ f^2 and the SIMD pass's to
   within its float sum's error (~1e-8 in f). */
static double final_step(const ss_em_problem *pr, double v, double f, const ss_em_sums *s,
                         double v_pos, double v_neg) {
  const double sigma = pr->tcoord ? -1.0 : 1.0;
  const double f1 = -pr->k * s->s1, f2 = pr->k * (pr->k - 1.0) * s->s2;
  /* Newton where the float sums overflowed f'' (an entry at u ~ 1e-23
     has p/u^2 ~ 1e42: Halley's step came out 0, SIMD y[0] 2.4e-7 off) */
  double dtheta = halley(f, f1, f2);
  if (!(fabs(dtheta) < INFINITY && fabs(f2) < INFINITY)) dtheta = -f / f1;
  if (!(fabs(dtheta) < INFINITY)) return v;
  if (pr->special && !(dtheta > 0.0 ? dtheta < s->umin : -dtheta < -s->uout)) return v;
  const double cand = v + sigma * dtheta;
  return cand > fmin(v_pos, v_neg) && cand < fmax(v_pos, v_neg) ? cand : v;
}

double ss_em_iterate(const ss_em_problem *pr, ss_entmax_solver solver,
                     double tol, unsigned max_iter, bool fallback, ss_em_eval_fn eval,
                     unsigned *iterations, double *residual, bool *done) {
  double v_lo, v_hi;
  ss_em_bracket(pr, &v_lo, &v_hi);
  /* f >= 0 at theta = -1, f <= 0 at the other end. */
  double v_pos = pr->tcoord ? v_hi : v_lo, v_neg = pr->tcoord ? v_lo : v_hi;
  double f_pos = NAN, f_neg = NAN; /* Illinois-weighted f at the ends */
  bool pos_seen = false, neg_seen = false;
  int kept = 0; /* > 0: the f > 0 end kept that many times in a row, < 0: f < 0 end */
  unsigned it = 0;
  if (!(v_lo < v_hi)) { /* n_eff == 1: theta = -1, p = 1 exactly */
    *iterations = 0;
    *residual = 0.0;
    if (done) *done = true;
    return v_pos;
  }
  const bool use_halley = solver == SS_ENTMAX_HALLEY;
  const double sigma = pr->tcoord ? -1.0 : 1.0; /* dtheta / dv */
  double v = 0.5 * (v_lo + v_hi), best_v = v, best_f = INFINITY;
  ss_em_sums best_s = {0}; /* the sums at best_v (final_step) */
  bool best_derivs = false;
  /* (5)'s checkpoint: the bisection point of the bracket and |f| when it
     was taken, and the pass */
  double chk_mid = NAN, chk_f = INFINITY;
  unsigned chk_it = 0;
  bool converged = false;
  for (;;) {
    /* (6) Halley's cap reached unconverged: with `fallback`, bisection of
       the bracket finishes (to resolution within the budget) */
    if (it >= max_iter && (!use_halley || !fallback || it >= max_iter + SS_EM_FALLBACK_PASSES))
      break;
    ss_em_sums s;
    const bool halley_pass = use_halley && it < max_iter;
    eval(pr, v, halley_pass, &s);
    it++;
    const double f = s.s0 - 1.0;
    if (fabs(f) < fabs(best_f)) {
      best_f = f;
      best_v = v;
      best_s = s;
      best_derivs = halley_pass;
    }
    if (fabs(f) <= tol) {
      converged = true;
      break;
    }
    if (f > 0.0) {
      v_pos = v;
      f_pos = f;
      pos_seen = true;
      kept = kept < 0 ? kept - 1 : -1;
      if (kept <= -2) f_neg *= 0.5;
    } else {
      v_neg = v;
      f_neg = f;
      neg_seen = true;
      kept = kept > 0 ? kept + 1 : 1;
      if (kept >= 2) f_pos *= 0.5;
    }
    const double lo = fmin(v_pos, v_neg), hi = fmax(v_pos, v_neg);
    double next = bisect_point(v_pos, v_neg);
    /* (5) the bracket has lost the checkpoint's bisection point (it halved)
       or |f| halved: a new checkpoint; else after 3 such passes bisect */
    if (!(chk_mid > lo && chk_mid < hi) || fabs(best_f) <= 0.5 * chk_f) {
      chk_mid = next;
      chk_f = fabs(best_f);
      chk_it = it;
    }
    if (halley_pass && it - chk_it < 3) {
      /* derivatives in theta, then the step in v */
      const double f1 = -pr->k * s.s1, f2 = pr->k * (pr->k - 1.0) * s.s2;
      double dv;
      if (fabs(f) >= 1.0) { /* (3) */
        const double t = -ss_em_theta(pr, v);
        const double q = t * pr->k * s.s1 / s.s0; /* dlog S / dlog t */
        dv = -sigma * t * expm1(-log1p(f) / q);
      } else if (pr->special) { /* (2) */
        const double theta = ss_em_theta(pr, v);
        dv = sigma * special_step(pr, &s, f, f1, f2, theta, ss_em_theta(pr, v_pos));
      } else {
        dv = halley(f, sigma * f1, f2);
      }
      const double cand = v + dv;
      /* the lower end is theta_hi's (t) or theta = -1's (phi) */
      const bool lo_free = !(pr->tcoord ? neg_seen : pos_seen) && lo == v_lo;
      const bool hi_free = !(pr->tcoord ? pos_seen : neg_seen) && hi == v_hi;
      if (cand > lo && cand < hi) next = cand;
      else if (cand <= lo && lo_free) next = v_lo; /* (1) */
      else if (cand >= hi && hi_free) next = v_hi;
      else if (cand == v && dv != 0.0) { /* converged to resolution */
        converged = true;
        break;
      } else next = bracket_step(v_pos, f_pos, v_neg, f_neg); /* (4) */
    }
    if ((next == v_pos && pos_seen) || (next == v_neg && neg_seen)) {
      converged = true; /* no double left between the bracket's ends */
      break;
    }
    v = next;
  }
  *iterations = it;
  *residual = best_f;
  if (done) *done = converged;
  if (converged && best_derivs && best_f != 0.0) return final_step(pr, best_v, best_f, &best_s, v_pos, v_neg);
  return best_v;
}
