/*
 * Named regression tests: one per defect the conformance testers
 * (tests/c/conformance_*.c) and the fuzzers (tests/fuzz/) found, on the
 * input that found it (the fuzzers' inputs are also kept in
 * tests/fuzz/corpus/<target>/ as regress-*). Each test states the defect it
 * guards against and checks the fixed behaviour in every impl.
 */
#include <float.h>
#include <string.h>

#include "conformance.h"
#include "harness.h"

static const ss_kernel_info *N_(const char *name) { return ss_kernel_find(name, SS_FAMILY_NORMALIZER); }
static const ss_kernel_info *S_(const char *name) { return ss_kernel_find(name, SS_FAMILY_SAMPLER); }

/* Registry defaults with one parameter set by name. */
static void params_with(const ss_kernel_info *k, double *p, const char *name, double v) {
  for (size_t i = 0; i < k->nparams; i++)
    p[i] = !strcmp(k->params[i].name, name) ? v : k->params[i].def;
}

static bool finite_row(const float *y, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isfinite(y[i])) return false;
  return true;
}

/* ---- normalizers ---------------------------------------------------------- */

/* ssmax with s = 1e-50 returned NaN with SS_OK: the float scale s log n was
   0 and 0 * (-Inf) poisoned the masked entries. Now the exact softmax of a
   scale below FLT_MIN: uniform over the unmasked entries here. */
TEST(regress_ssmax_s_1e_50_is_not_nan) {
  const float x[5] = {1.0f, 2.0f, -INFINITY, 3.0f, -1e30f};
  const double s = 1e-50;
  FOR_EACH_IMPL(impl) {
    float y[5];
    CHECK_STATUS(ss_normalize(N_("ssmax"), impl, x, 5, &s, 1, y), SS_OK);
    CHECK(y[2] == 0.0f && !signbit(y[2]), "%s: masked %g", ss_impl_name(impl), y[2]);
    for (int i = 0; i < 5; i++)
      if (i != 2) CHECK(y[i] == 0.25f, "%s: y[%d] = %.9g, want 1/4", ss_impl_name(impl), i, y[i]);
  }
}

/* entmax's alpha gradient near alpha = 1 came from a difference of two O(1/a)
   terms: +-1e23 (scalar and SIMD disagreeing in sign) at alpha = 1 + 2^-52.
   Its limit is -1/2 sum_i (g_i - <g, y>) y_i log^2 y_i, y = softmax(x). */
TEST(regress_entmax_dalpha_near_alpha_1) {
  const float x[6] = {0.3f, -1.2f, 2.0f, 0.7f, -0.1f, 1.1f};
  const float g[6] = {1.0f, 0.0f, -0.5f, 0.25f, 2.0f, 0.0f};
  double y64[6], s = 0.0, gy = 0.0, want = 0.0;
  for (int i = 0; i < 6; i++) s += (y64[i] = exp((double)x[i] - 2.0));
  for (int i = 0; i < 6; i++) y64[i] /= s, gy += g[i] * y64[i];
  for (int i = 0; i < 6; i++) want += -0.5 * (g[i] - gy) * y64[i] * log(y64[i]) * log(y64[i]);
  static const char *const names[] = {"entmax_bisect", "entmax_halley"};
  const double alphas[] = {1.0 + 0x1p-52, 1.0 + 1e-9, 1.0 + 1e-6};
  for (int k = 0; k < 2; k++)
    for (int a = 0; a < 3; a++)
      FOR_EACH_IMPL(impl) {
        float y[6];
        double d;
        CHECK_STATUS(ss_normalize(N_(names[k]), impl, x, 6, &alphas[a], 1, y), SS_OK);
        CHECK_STATUS(ss_normalize_param_vjp(N_(names[k]), impl, x, y, g, 6, &alphas[a], 1, &d), SS_OK);
        CHECK(fabs(d - want) <= 1e-4 * fabs(want) + 2e-6 * (alphas[a] - 1.0) * 1e6,
              "%s %s alpha-1 = %g: dalpha %.9g, limit %.9g", names[k], ss_impl_name(impl),
              alphas[a] - 1.0, d, want);
      }
}

/* entmax's SIMD VJP at alpha = 5.34 was 1.5 % off the scalar one: g - gbar
   cancelled in float where one entry dominates gbar and its s = y^(2-alpha)
   is large. The conformance tester's case (n = 8, normal logits). */
TEST(regress_entmax_simd_vjp_large_alpha) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  ss_rng r = {22}; /* a row on which the old SIMD VJP was 0.17 % of max |dx| off */
  float x[8], g[8], y[8], d0[8], d1[8];
  for (int i = 0; i < 8; i++) x[i] = (float)ss_rng_normal(&r), g[i] = (float)ss_rng_normal(&r);
  const double alpha = 5.3385462737660339;
  CHECK_STATUS(ss_normalize(N_("entmax_bisect"), SS_IMPL_SCALAR, x, 8, &alpha, 1, y), SS_OK);
  CHECK_STATUS(ss_normalize_vjp(N_("entmax_bisect"), SS_IMPL_SCALAR, x, y, g, 8, &alpha, 1, d0), SS_OK);
  CHECK_STATUS(ss_normalize_vjp(N_("entmax_bisect"), SS_IMPL_SIMD, x, y, g, 8, &alpha, 1, d1), SS_OK);
  double m = 0.0;
  for (int i = 0; i < 8; i++) m = fmax(m, fabs(d0[i]));
  for (int i = 0; i < 8; i++)
    CHECK(fabs((double)d1[i] - d0[i]) <= 1e-5 * m, "dx[%d]: SIMD %.9g scalar %.9g", i, d1[i], d0[i]);
}

/* multimax's gradient in t0 with r0 = 1e4 lost its digits: relu(r0 - x)
   ~ 1e4 times sum(v) = O(1e-7) in float. At t = 0 the output is
   y = softmax(x), and d<g, y>/dt0 = sum g_i y_i (a_i - <y, a>) with
   a = r0 - x, in which r0 cancels exactly: sum g_i y_i (<y, x> - x_i),
   computed here in double. */
TEST(regress_multimax_far_threshold_gradient) {
  const float x[7] = {0.5f, -1.0f, 2.0f, 0.25f, -3.0f, 1.5f, 0.0f};
  const float g[7] = {1, -1, 0.5f, 2, 0, -0.5f, 1};
  double y64[7], s = 0.0, xbar = 0.0, want = 0.0;
  for (int i = 0; i < 7; i++) s += (y64[i] = exp((double)x[i] - 2.0));
  for (int i = 0; i < 7; i++) y64[i] /= s, xbar += y64[i] * x[i];
  for (int i = 0; i < 7; i++) want += g[i] * y64[i] * (xbar - x[i]);
  double p[8] = {0, 0, 0, 0, 1e4, 0, 0, 0}, dp[8];
  FOR_EACH_IMPL(impl) {
    float y[7];
    CHECK_STATUS(ss_normalize(N_("multimax"), impl, x, 7, p, 8, y), SS_OK);
    CHECK_STATUS(ss_normalize_param_vjp(N_("multimax"), impl, x, y, g, 7, p, 8, dp), SS_OK);
    CHECK(fabs(dp[0] - want) <= 2e-6 * fabs(want), "%s: d/dt0 %.9g, want %.9g",
          ss_impl_name(impl), dp[0], want);
  }
}

/* asentmax at alpha = 10 on a row where one entry sits at the threshold
   (its p^9 ~ 5e-19 is below one ulp of theta): scalar gave [1, 0, ...],
   SIMD [0.982, 0.018, ...], each dividing the unresolvable deficit by the
   sum. Now both keep the resolved entry and give the unresolved one the
   deficit: y0 + y2 = 1 with y0^9 - y2^9 = 9 c (x0 - x2), c = 1 + log 7. */
TEST(regress_entmax_unresolved_entry_alpha_10) {
  const float x[7] = {0.0f, -0x1.9ee57ep+3f, -0x1.1bbf38p-5f, -0x1.a5a2bcp+6f,
                      -0x1.1339a4p+5f, -0x1.2b4a6ep+6f, -0x1.86dbf8p+6f};
  const double p[4] = {10.0, 1.0, 1.0, 1.0};
  const double d = 9.0 * (1.0 + log(7.0)) * (0.0 - (double)x[2]);
  /* y0 solves y0^9 - (1 - y0)^9 = d: bisection in double */
  double lo = 0.5, hi = 1.0;
  for (int i = 0; i < 200; i++) {
    const double mid = 0.5 * (lo + hi);
    if (pow(mid, 9) - pow(1.0 - mid, 9) > d) hi = mid;
    else lo = mid;
  }
  float y0[7], y1[7];
  FOR_EACH_IMPL(impl) {
    float *y = impl == SS_IMPL_SCALAR ? y0 : y1;
    CHECK_STATUS(ss_normalize(N_("asentmax"), impl, x, 7, p, 4, y), SS_OK);
    CHECK(fabs(y[0] - lo) < 1e-6 && fabs(y[2] - (1.0 - lo)) < 1e-6, "%s: y0 %.9g y2 %.9g, want %.9g %.9g",
          ss_impl_name(impl), y[0], y[2], lo, 1.0 - lo);
  }
  if (ss_impl_available(SS_IMPL_SIMD))
    for (int i = 0; i < 7; i++) CHECK(fabsf(y0[i] - y1[i]) < 1e-6f, "y[%d]: %g vs %g", i, y0[i], y1[i]);
}

/* masked_softmax answered SS_ERR_PARAM_RANGE for mask_from = 1 > mask_to =
   0, both inside their documented ranges. Now the empty range. */
TEST(regress_masked_softmax_from_above_to) {
  const float x[3] = {0.5f, -1.0f, 2.0f};
  const double p[2] = {1, 0}, none[2] = {0, 0};
  FOR_EACH_IMPL(impl) {
    float a[3], b[3];
    CHECK_STATUS(ss_normalize(N_("masked_softmax"), impl, x, 3, p, 2, a), SS_OK);
    CHECK_STATUS(ss_normalize(N_("masked_softmax"), impl, x, 3, none, 2, b), SS_OK);
    CHECK(memcmp(a, b, sizeof a) == 0, "%s: not the unmasked softmax", ss_impl_name(impl));
  }
}

/* The exact-zero rule: outputs below FLT_MIN were subnormal in one impl
   and 0 in the other (ssmax, softplus_l1, noisy_softmax, multimax ...),
   and sa_softmax / boltzmann wrote -0. */
TEST(regress_exact_zero_rule_no_subnormal_outputs) {
  float x[6] = {0.0f, -95.0f, -20.0f, -100.0f, 3.0f, -1e-45f};
  for (size_t ki = 0; ki < ss_kernel_count(); ki++) {
    const ss_kernel_info *k = ss_kernel_at(ki);
    if (k->family != SS_FAMILY_NORMALIZER || k->output == SS_OUTPUT_LOG_PROBS) continue;
    double p[16];
    for (size_t i = 0; i < k->nparams; i++) {
      p[i] = k->params[i].def;
      if (k->params[i].n_bound && p[i] > 6) p[i] = 6;
    }
    FOR_EACH_IMPL(impl) {
      float y[6];
      if (ss_normalize(k, impl, x, 6, p, k->nparams, y) != SS_OK) continue;
      for (int i = 0; i < 6; i++)
        CHECK(!(y[i] != 0.0f && fabsf(y[i]) < FLT_MIN) && !(y[i] == 0.0f && signbit(y[i])),
              "%s %s: y[%d] = %a", k->name, ss_impl_name(impl), i, y[i]);
    }
  }
}

/* The exact-zero rule across builds: sa_softmax and boltzmann of [0, -88]
   gave [0, 0] in the SIMD and relaxed builds (the vector exp writes +0 for
   p_1 = e^-88 < FLT_MIN) and [0, -5.33e-37] in scalar (the denormal p_1
   times x_1 = -88, a normal float): the support differed between builds.
   Now p_i follows softmax's rule before the product in every impl:
   y_1 = +0 (exact p_1 = 6.05e-39 < FLT_MIN), y_0 = 0 * 1 = 0; and on
   [0, -80], where p_1 = 1.8e-35 is normal, y_1 = -80 p_1 in every impl. */
TEST(regress_weighted_softmax_support_below_flt_min) {
  static const char *const names[] = {"boltzmann", "sa_softmax"};
  const float deep[2] = {0.0f, -88.0f}, kept[2] = {0.0f, -80.0f};
  const double want = -80.0 * exp(-80.0) / (1.0 + exp(-80.0));
  for (int k = 0; k < 2; k++) {
    const ss_kernel_info *ki = N_(names[k]);
    double p[4];
    params_with(ki, p, "", 0.0);
    FOR_EACH_IMPL(impl) {
      float y[2];
      CHECK_STATUS(ss_normalize(ki, impl, deep, 2, p, ki->nparams, y), SS_OK);
      CHECK(y[1] == 0.0f && !signbit(y[1]), "%s %s: [0, -88] gives y1 = %a, want +0", names[k],
            ss_impl_name(impl), y[1]);
      CHECK_STATUS(ss_normalize(ki, impl, kept, 2, p, ki->nparams, y), SS_OK);
      CHECK(fabs(y[1] - want) <= 1e-5 * fabs(want), "%s %s: [0, -80] gives y1 = %g, want %g", names[k],
            ss_impl_name(impl), y[1], want);
    }
  }
}

/* An entry exactly at the entmax threshold: with four maxima of x = 3,
   sum p = 1 puts the threshold at u = t = 4^-(alpha-1) below them, so an
   entry at x = 3 - t / (alpha - 1) has p = 0 exactly. The solver stops
   within tol, a little to either side: asentmax (beta = 1.59e-9, ties,
   n = 17) gave 0 in scalar and 5.9e-17 in SIMD -- the support differed.
   Now every impl zeroes the entries whose u is within the threshold's
   resolution at tol (entmax_pass.c, support_cut): y = +0 there, and the
   maxima 1/4 each. */
TEST(regress_entmax_support_entry_at_threshold) {
  static const double alphas[] = {1.5, 2.0, 3.0};
  static const char *const names[] = {"entmax_halley", "entmax_bisect", "asentmax"};
  float x[80], y[80];
  for (size_t a = 0; a < sizeof alphas / sizeof alphas[0]; a++) {
    const double t = pow(4.0, -(alphas[a] - 1.0));
    const float xt = (float)(3.0 - t / (alphas[a] - 1.0)); /* exact: 2, 2.75, 2.96875 */
    for (size_t n = 5; n <= 80; n++) {
      for (size_t i = 0; i < n; i++) x[i] = i < 4 ? 3.0f : (i % 3 == 1 ? xt : (float)(i % 3));
      for (int e = 0; e < 3; e++) {
        const ss_kernel_info *k = N_(names[e]);
        double p[4];
        params_with(k, p, "beta", 0.0); /* asentmax: scale c = delta = 1 */
        p[0] = alphas[a];
        FOR_EACH_IMPL(impl) {
          CHECK_STATUS(ss_normalize(k, impl, x, n, p, k->nparams, y), SS_OK);
          for (size_t i = 0; i < n; i++) {
            if (i < 4)
              CHECK(fabs(y[i] - 0.25) <= 1e-6, "%s %s alpha=%g n=%zu: y[%zu] = %.9g, want 1/4",
                    names[e], ss_impl_name(impl), alphas[a], n, i, y[i]);
            else
              CHECK(y[i] == 0.0f && !signbit(y[i]), "%s %s alpha=%g n=%zu: y[%zu] = %a (x %g), want +0",
                    names[e], ss_impl_name(impl), alphas[a], n, i, y[i], x[i]);
          }
        }
      }
    }
  }
}

/* softplus_l1 near FLT_MIN: y_i = w_i / sum w with sum w >= log 2 (the
   maximum's weight), so y_i can be normal (up to 1.44 w_i) where w_i, and
   the SIMD e_i = e^{c (x_i - M)} it is built from, are below FLT_MIN: SIMD
   wrote +0 where scalar gave 1.1 FLT_MIN (defaults, deep inputs, n =
   1000). Now the SIMD exponentials carry a factor 2 (normal down to
   FLT_MIN / 2) and both impls decide on y: x = {0, x1} with y1 = 1.15
   FLT_MIN is that value in every impl, and with y1 = 0.58 FLT_MIN +0. */
TEST(regress_softplus_l1_output_near_flt_min) {
  const ss_kernel_info *k = N_("softplus_l1");
  const double p[1] = {64.0};
  const double c = log(64.0) * log(2.0);
  static const double targets[] = {1.15, 0.58};
  for (int j = 0; j < 2; j++) {
    const float x[2] = {0.0f, (float)(log(targets[j] * log(2.0) * FLT_MIN) / c)};
    const double w1 = log1p(exp(c * (double)x[1]));
    const double ref = w1 / (log(2.0) + w1);
    FOR_EACH_IMPL(impl) {
      float y[2];
      CHECK_STATUS(ss_normalize(k, impl, x, 2, p, 1, y), SS_OK);
      if (ref >= FLT_MIN)
        CHECK(fabs(y[1] - ref) <= 1e-5 * ref, "%s x1 = %a: y1 = %a, reference %a", ss_impl_name(impl),
              x[1], y[1], ref);
      else
        CHECK(y[1] == 0.0f && !signbit(y[1]), "%s x1 = %a: y1 = %a, reference %a (below FLT_MIN)",
              ss_impl_name(impl), x[1], y[1], ref);
    }
  }
}

/* Runs the VJP (and the parameter VJP when there is one) in every impl on
   y = the scalar forward: the impls must agree on the status; on SS_OK no
   NaN / Inf and SIMD within 2^-12 of max |dx| of scalar. *st: the status. */
static void vjp_agree(const char *name, const double *p, const float *x, const float *g, size_t n,
                      ss_status *st) {
  const ss_kernel_info *k = N_(name);
  *st = SS_ERR_NULL;
  float y[64], d0[64], d1[64]; /* n <= 64 */
  CHECK_STATUS(ss_normalize(k, SS_IMPL_SCALAR, x, n, p, k->nparams, y), SS_OK);
  const ss_status s0 = *st = ss_normalize_vjp(k, SS_IMPL_SCALAR, x, y, g, n, p, k->nparams, d0);
  double m = 0.0;
  for (size_t i = 0; s0 == SS_OK && i < n; i++) {
    CHECK(isfinite(d0[i]), "%s scalar: dx[%zu] = %g on SS_OK", name, i, d0[i]);
    m = fmax(m, fabs(d0[i]));
  }
  if (ss_impl_available(SS_IMPL_SIMD)) {
    const ss_status s1 = ss_normalize_vjp(k, SS_IMPL_SIMD, x, y, g, n, p, k->nparams, d1);
    CHECK(s0 == s1, "%s: scalar %s, SIMD %s", name, ss_status_name(s0), ss_status_name(s1));
    for (size_t i = 0; s0 == SS_OK && s1 == SS_OK && i < n; i++)
      CHECK(fabs((double)d1[i] - d0[i]) <= 0x1p-12 * m, "%s: SIMD dx[%zu] = %g, scalar %g", name, i, d1[i],
            d0[i]);
  }
  if (k->has_param_backward) {
    double q0[16], q1[16];
    const ss_status w0 = ss_normalize_param_vjp(k, SS_IMPL_SCALAR, x, y, g, n, p, k->nparams, q0);
    for (size_t j = 0; w0 == SS_OK && j < k->nparams; j++)
      CHECK(isfinite(q0[j]), "%s: parameter gradient %zu = %g", name, j, q0[j]);
    if (ss_impl_available(SS_IMPL_SIMD)) {
      const ss_status w1 = ss_normalize_param_vjp(k, SS_IMPL_SIMD, x, y, g, n, p, k->nparams, q1);
      CHECK(w0 == w1, "%s param: scalar %s, SIMD %s", name, ss_status_name(w0), ss_status_name(w1));
      for (size_t j = 0; w0 == SS_OK && w1 == SS_OK && j < k->nparams; j++)
        CHECK(fabs(q1[j] - q0[j]) <= 0x1p-12 * fabs(q0[j]), "%s: SIMD parameter gradient %zu = %.9g, scalar %.9g",
              name, j, q1[j], q0[j]);
    }
  }
}

/* Fuzzer (regress-sa-softmax-vjp-subnormal-range): sa_softmax on one
   subnormal logit among zeros, range R = 1.6e-41: the SIMD VJP took 1 / R
   in float (+Inf, NaN gradients) where the scalar one works in double. */
TEST(regress_sa_softmax_vjp_subnormal_range) {
  enum { N = 29 };
  float x[N] = {0x1.201ep-134f}, g[N] = {0};
  g[0] = 1e-30f, g[5] = -1e-30f, g[28] = 2e-31f;
  const double p = 1.0; /* normalized */
  ss_status s;
  vjp_agree("sa_softmax", &p, x, g, N, &s);
  CHECK_STATUS(s, SS_OK);
  g[5] = 1.0f; /* dx_5 ~ g_5 / (29 R) = 2e39: beyond FLT_MAX, SS_ERR_DOMAIN in both */
  vjp_agree("sa_softmax", &p, x, g, N, &s);
  CHECK_STATUS(s, SS_ERR_DOMAIN);
}

/* Fuzzer (regress-sa-softmax-vjp-tiny-range-large-g): sa_softmax on logits
   of range R = 2^-84.4 with g ~ 2^119: the SIMD VJP formed g (w + 1 / R) in
   float (2^203: SS_ERR_DOMAIN) where the scalar one, in double, is finite
   (the jmin / jmax terms cancel it). */
TEST(regress_sa_softmax_vjp_tiny_range_large_g) {
  const float x[4] = {-0x1p-91f, -0x1p-91f, 0x1.5p-85f, 0x1.74p-85f}, g[4] = {0x1.8p+119f, 0, 0, 0x1p+118f};
  const double p = 1.0;
  ss_status s;
  vjp_agree("sa_softmax", &p, x, g, 4, &s);
  CHECK_STATUS(s, SS_OK);
}

/* Fuzzer (regress-boltzmann-vjp-huge-bx): boltzmann, b = -1000, a single
   unmasked logit 4.8e36. The exact gradient is g (y = x whatever x); with
   b x beyond 2^53 the scalar path lost the 1 in 1 + b x and gave 0, the SIMD
   one overflowed in float and gave NaN. */
TEST(regress_boltzmann_vjp_huge_bx) {
  enum { N = 25 };
  float x[N], g[N] = {0}, y[N], dx[N];
  for (size_t i = 0; i < N; i++) x[i] = -INFINITY;
  x[0] = 0x1.ccp+120f, g[0] = 0.75f, g[24] = 3.0f;
  const double b = -1000.0;
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(N_("boltzmann"), impl, x, N, &b, 1, y), SS_OK);
    CHECK_STATUS(ss_normalize_vjp(N_("boltzmann"), impl, x, y, g, N, &b, 1, dx), SS_OK);
    CHECK(dx[0] == 0.75f && dx[24] == 0.0f, "%s: dx %g %g, want 0.75 0", ss_impl_name(impl), dx[0], dx[24]);
  }
  ss_status s;
  vjp_agree("boltzmann", &b, x, g, N, &s);
}

/* Fuzzer (regress-adaptive-vjp-g-near-flt-max): adaptive_temperature (beta
   = 1 here: softmax's VJP) on a one-hot y with g near FLT_MAX. The SIMD core
   formed g_i - <g, y> in float (-2^128: Inf, then 0 * Inf = NaN,
   SS_ERR_DOMAIN) where the scalar one, in double, gives the exact dx = 0.
   The class: a SIMD backward whose float intermediate overflows is answered
   by the scalar reference (registry/dispatch.c), so every normalizer with a
   VJP gets the same status from both impls on this input. */
TEST(regress_vjp_float_intermediate_overflow) {
  const float x[4] = {0x1.8p+102f, 0.0f, 0x1p+101f, 0x1p+101f};
  const float g[4] = {0x1.dp+126f, 0x1.dp+125f, -0x1.18p+127f, 0x1p+124f};
  static const char *const zero_dx[] = {"adaptive_temperature", "softmax"};
  for (int j = 0; j < 2; j++)
    FOR_EACH_IMPL(impl) {
      float y[4], dx[4];
      CHECK_STATUS(ss_normalize(N_(zero_dx[j]), impl, x, 4, NULL, 0, y), SS_OK);
      CHECK_STATUS(ss_normalize_vjp(N_(zero_dx[j]), impl, x, y, g, 4, NULL, 0, dx), SS_OK);
      for (int i = 0; i < 4; i++)
        CHECK(dx[i] == 0.0f, "%s %s: dx[%d] = %g, want 0 (y one-hot)", zero_dx[j], ss_impl_name(impl), i,
              dx[i]);
    }
  for (size_t ki = 0; ki < ss_kernel_count(); ki++) {
    const ss_kernel_info *k = ss_kernel_at(ki);
    if (k->family != SS_FAMILY_NORMALIZER || !k->has_backward) continue;
    double p[16];
    cf_defaults(k, 4, p);
    float y[4];
    if (ss_normalize(k, SS_IMPL_SCALAR, x, 4, p, k->nparams, y) != SS_OK) continue;
    ss_status s;
    vjp_agree(k->name, p, x, g, 4, &s);
  }
}

/* Fuzzer (regress-softpick-vjp-cancellation-overflow): softpick on logits
   ~1e-14 (D ~ 4e-14, so w = e^{x - m} / D ~ 2e13) with g = 2^113.9 on
   every entry: dx = w (g - <g, y>) is 0 (y sums to 1), but its terms are
   ~1e48. The scalar reference (double, from the float y) rounded to an
   overflow, SS_ERR_DOMAIN, where the SIMD one (float) cancelled to 0, SS_OK.
   The class: a SIMD VJP whose terms (|g| + |<g, y>|) / D may pass FLT_MAX
   takes the scalar path, so both impls give one status (here also at
   logits ~1e-20 and g ~ 1e38, where double rounding overflows too). */
TEST(regress_softpick_vjp_cancellation_overflow) {
  const float rows[2][8] = {
      {0x1.38p-48f, 0x1.2p-49f, 0x1.38p-48f, 0x1.38p-48f, 0x1.38p-48f, -INFINITY, 0x1p-48f, 0x1.fcp-48f},
      {0x1.38p-66f, 0x1.2p-67f, 0x1.38p-66f, 0x1.38p-66f, 0x1.38p-66f, -INFINITY, 0x1p-66f, 0x1.fcp-66f}};
  const float gv[2] = {0x1.f0f0fp+113f, 0x1.2p+126f};
  for (int r = 0; r < 2; r++) {
    float g[8];
    for (int i = 0; i < 8; i++) g[i] = gv[r];
    ss_status s;
    vjp_agree("softpick", NULL, rows[r], g, 8, &s);
  }
}

/* Fuzzer (regress-multimax-vjp-cancellation-overflow): multimax with t0 =
   t1 = t2 = 1000, logits ~+-1e6 and g = -2^123 on every entry: the softmax
   VJP in z cancels (g constant), but times the modulator's slope (~1e9) its
   rounding error overflowed in the scalar reference (SS_ERR_DOMAIN) where
   the SIMD one cancelled to SS_OK. The class: a SIMD VJP whose bound
   2 max|g| max|slope| may pass FLT_MAX / 2 takes the scalar path. */
TEST(regress_multimax_vjp_cancellation_overflow) {
  const float x[6] = {-INFINITY, -0x1.b8p+20f, -0x1.b8p+20f, -0x1.b8p+20f, 0x1.08p+19f, 0x1.2p+20f};
  const double p[8] = {1000, 1000, 1000, -7.7530787046172157e-13, -7.7530787046172244e-12, -7.7530787046172244e-12,
                       -7.7530787046172244e-12, -7.7530787046172244e-12};
  float g[6];
  for (int i = 0; i < 6; i++) g[i] = -0x1p+123f;
  ss_status s;
  vjp_agree("multimax", p, x, g, 6, &s);
}

/* Fuzzer (regress-boltzmann-param-vjp-huge-gy): boltzmann, b = 1000, x =
   {2^102, 0, 0, 0, 0}, g_0 = -2^93.8: the SIMD parameter VJP formed g y in
   float (overflow, SS_ERR_DOMAIN) where the scalar one (double) is finite. */
TEST(regress_boltzmann_param_vjp_huge_gy) {
  const float x[5] = {0x1p+102f, 0, 0, 0, 0}, g[5] = {-0x1.c4p+93f, 0, 0, 0, 1};
  const double b = 1000.0;
  ss_status s;
  vjp_agree("boltzmann", &b, x, g, 5, &s);
  CHECK_STATUS(s, SS_OK);
}

/* Fuzzer (regress-entmax-param-vjp-huge-g): entmax_bisect, alpha = 10 -
   2 ulp, logits 0, 2^-33, 2^-32, 2^-33 (y ~ 1/4 each) and g_3 = 2^127: the
   SIMD VJPs formed float products with g that overflowed where the scalar
   ones (double) did not, so the impls disagreed on the status. Now both: the
   input gradient ~ g y^(2 - alpha) / (alpha - 1) ~ 2^140 is SS_ERR_DOMAIN,
   the alpha gradient (a double) is finite; at g_3 = 2^110 all is SS_OK. */
TEST(regress_entmax_param_vjp_huge_g) {
  const float x[4] = {0, 0x1p-33f, 0x1p-32f, 0x1p-33f};
  float g[4] = {0, 0, 0, 0x1p127f};
  const double a = 9.9999999999999982;
  static const char *const names[] = {"entmax_bisect", "entmax_halley"};
  for (int e = 0; e < 2; e++) {
    ss_status s;
    g[3] = 0x1p127f;
    vjp_agree(names[e], &a, x, g, 4, &s);
    CHECK_STATUS(s, SS_ERR_DOMAIN);
    g[3] = 0x1p110f;
    vjp_agree(names[e], &a, x, g, 4, &s);
    CHECK_STATUS(s, SS_OK);
  }
}

/* Fuzzer (regress-ssmax-param-vjp-float-moments): ssmax at s = 2^-1074 (y
   uniform), x = {0, 0, 0, 0, 0, 2^127}, g ~ 2^85: the SIMD parameter VJP
   summed g y (x - max) in float lanes (overflow: SS_ERR_DOMAIN) where the
   scalar one (double) gives -1.3e63. The moments are f64x2 lanes now (also
   adaptive_temperature's VJP). */
TEST(regress_ssmax_param_vjp_float_moments) {
  const float x[6] = {0, 0, 0, 0, 0, 0x1p127f}, g[6] = {0x1.8p+85f, 0x1p+86f, 0x1p+85f, 0x1p+86f, 0, 0x1p+84f};
  const double s = 4.9406564584124654e-324;
  ss_status st;
  vjp_agree("ssmax", &s, x, g, 6, &st);
  CHECK_STATUS(st, SS_OK);
  float y[6];
  double dp;
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(N_("ssmax"), SS_IMPL_SCALAR, x, 6, &s, 1, y), SS_OK);
    CHECK_STATUS(ss_normalize_param_vjp(N_("ssmax"), impl, x, y, g, 6, &s, 1, &dp), SS_OK);
    CHECK(dp < -1e63 && dp > -2e63, "%s: ds = %g", ss_impl_name(impl), dp);
  }
}

/* Fuzzer (regress-entmax-halley-near-ties-alpha-10): entmax_halley at alpha
   = 10 - 2 ulp on 3690 logits, four of them 2^-51 .. 1.7 2^-49 above 3686
   zeros: the float threshold cannot separate the entries and the SIMD path
   accepted an iterate whose residual it had measured in float (sum 1 +- 6e-3,
   impls apart). Now verified and redone in double: both sum to 1 and agree. */
TEST(regress_entmax_halley_near_ties_alpha_10) {
  enum { N = 3690 };
  static float x[N], y0[N], y1[N];
  x[0] = x[2] = 0x1p-51f, x[1] = x[3] = 0x1.b8p-49f;
  const double a = 9.9999999999999982;
  static const char *const names[] = {"entmax_halley", "entmax_bisect"};
  for (int e = 0; e < 2; e++) {
    CHECK_STATUS(ss_normalize(N_(names[e]), SS_IMPL_SCALAR, x, N, &a, 1, y0), SS_OK);
    double s0 = 0.0;
    for (size_t i = 0; i < N; i++) s0 += y0[i];
    CHECK(fabs(s0 - 1.0) <= 1e-5, "%s scalar: sum %.9g", names[e], s0);
    if (!ss_impl_available(SS_IMPL_SIMD)) continue;
    CHECK_STATUS(ss_normalize(N_(names[e]), SS_IMPL_SIMD, x, N, &a, 1, y1), SS_OK);
    double s1 = 0.0, m = 0.0;
    for (size_t i = 0; i < N; i++) s1 += y1[i], m = fmax(m, fabs((double)y1[i] - y0[i]));
    CHECK(fabs(s1 - 1.0) <= 1e-5 && m <= 0x1p-16, "%s SIMD: sum %.9g, max |SIMD - scalar| %g", names[e], s1, m);
  }
}

/* Fuzzer (regress-entmax-halley-jump-alpha-10): entmax_halley at alpha = 10
   on x = {1e-12, 0, ..., 0}, n >= 2000 (and alpha = 8, n = 65536) returned
   a one-hot y with SS_OK in both impls, 0.94 off: the 1999 zeros enter the
   support at one threshold, where f jumps from -0.94 to +1999, the steps
   crept towards it from one side and the 100-pass cap ended the iteration
   unconverged; the division by the sum hid it. The answer, with a =
   alpha - 1, d = a * (float)(-1e-12) the others' shifted logit and u their
   common u: (|d| + u)^(1/a) + (n - 1) u^(1/a) = 1, solved here in long
   double by bisection in u (no code under test). */
TEST(regress_entmax_halley_jump_not_one_hot) {
  static float x[65536], y[65536];
  static const struct { double alpha; size_t n; } cases[] = {{10.0, 2000}, {10.0, 4096}, {8.0, 65536}};
  static const char *const names[] = {"entmax_halley", "entmax_bisect"};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    const size_t n = cases[c].n;
    const long double a = (long double)cases[c].alpha - 1.0L, k = 1.0L / a;
    memset(x, 0, n * sizeof x[0]);
    x[0] = 1e-12f;
    const long double d = fabsl((long double)((float)a * (0.0f - x[0])));
    long double lo = 0.0L, hi = 1.0L;
    for (int it = 0; it < 20000 && lo < hi; it++) {
      const long double u = lo > 0.0L && hi > 16.0L * lo ? sqrtl(lo) * sqrtl(hi) : 0.5L * (lo + hi);
      if (u <= lo || u >= hi) break;
      if (powl(d + u, k) + (long double)(n - 1) * powl(u, k) > 1.0L) hi = u;
      else lo = u;
    }
    const double r0 = (double)powl(d + lo, k), ri = (double)powl(lo, k);
    for (int e = 0; e < 2; e++)
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(N_(names[e]), impl, x, n, &cases[c].alpha, 1, y), SS_OK);
        CHECK(fabs(y[0] - r0) <= 1e-6 * r0, "%s %s alpha=%g n=%zu: y0 %.9g, reference %.9g",
              names[e], ss_impl_name(impl), cases[c].alpha, n, y[0], r0);
        for (size_t i = 1; i < n; i++)
          CHECK(fabs(y[i] - ri) <= 1e-5 * ri, "%s %s alpha=%g n=%zu: y[%zu] %.9g, reference %.9g",
                names[e], ss_impl_name(impl), cases[c].alpha, n, i, y[i], ri);
      }
  }
}

/* The alpha-entmax of the kernel's own problem in long double: d_i =
   (float)((alpha - 1) c) * (x_i - max x) in float (entmax_internal.h; the
   float d is where the kernel starts, and at alpha = 10 an entry near the
   threshold is too ill-conditioned in d to compare against the exact x),
   then bisection on t = -theta of sum [d_i + t]_+^(1/(alpha-1)) = 1 over
   the distinct d (with counts), y_i = p_i / sum p. */
static void entmax_reference_ld(const float *x, size_t n, double alpha, double c, double *ref) {
  enum { U = 64 };
  float m = -INFINITY;
  for (size_t i = 0; i < n; i++) m = fmaxf(m, x[i]);
  const float af = (float)((alpha - 1.0) * c);
  const long double k = 1.0L / ((long double)alpha - 1.0L);
  float du[U];
  long double cnt[U];
  size_t nu = 0;
  for (size_t i = 0; i < n; i++) {
    const float d = af * (x[i] - m);
    size_t j = 0;
    while (j < nu && du[j] != d) j++;
    if (j == nu) du[nu] = d, cnt[nu++] = 0.0L; /* the rows below have <= 20 distinct d */
    cnt[j] += 1.0L;
  }
  long double lo = 0.0L, hi = 1.0L;
  for (int it = 0; it < 20000; it++) {
    const long double t = lo == 0.0L ? hi / 16.0L : hi > 16.0L * lo ? sqrtl(lo) * sqrtl(hi) : 0.5L * (lo + hi);
    if (!(t > lo && t < hi)) break;
    long double s = 0.0L;
    for (size_t j = 0; j < nu; j++)
      if (du[j] + t > 0.0L) s += cnt[j] * powl(du[j] + t, k);
    if (s > 1.0L) hi = t;
    else lo = t;
  }
  long double s = 0.0L;
  for (size_t j = 0; j < nu; j++)
    if (du[j] + lo > 0.0L) s += cnt[j] * powl(du[j] + lo, k);
  for (size_t i = 0; i < n; i++) {
    const long double u = (long double)(af * (x[i] - m)) + lo;
    ref[i] = u > 0.0L ? (double)(powl(u, k) / s) : 0.0;
  }
}

/* Fuzzer (regress-entmax-halley-simd-vs-scalar-tiny-logits-alpha-10,
   -n3154-alpha-10, regress-asentmax-simd-vs-scalar-tiny-logits-alpha-10):
   alpha = 10 - 2 ulp, logits ~1e-12 (entmax_halley, n = 21), ~1e-9 and
   zeros (n = 3154), ~-7e-17 and zeros (asentmax, delta = beta = 100,
   gamma = 2, n = 24). The Halley iteration stops at |sum p - 1| <= 1e-6,
   which lets the entry of smallest u (it dominates f' at alpha > 2) be off
   by up to 1e-6 absolute; scalar and SIMD stopped at different points of
   that window and differed past the conformance bound (n = 21: y[6]
   scalar 0.00446300, SIMD 0.00446334, reference 0.00446327). Now a final
   Halley step from the converged point (entmax_solve.c (7)). Every impl
   within half the conformance bound of the long-double reference,
   |y - r| <= 2^-17 |r| + 2^-19 max r, so any two within the bound. */
TEST(regress_entmax_halley_small_entry_alpha_10) {
  enum { N = 3154 };
  static float x[N], y[N];
  static double ref[N];
  static const float x21[21] = {-0x1.8p-46f, 0x1p-47f, 0, 0, 0, 0, -0x1.8p-44f, 0x1.2p-44f, 0x1.dp-42f,
                                0x1.4p-42f, 0, 0, 0, 0x1.98p-42f, 0x1p-44f, 0x1.6cp-41f, 0x1.6cp-41f,
                                0x1.34p-41f, 0x1.6cp-41f, 0x1.6cp-41f, 0x1.2p-44f};
  static const struct { size_t i; float v; } x3154[] = {
      {0, 0x1.dp-31f},   {1, -0x1.28p-31f}, {2, -0x1.2p-33f}, {3, -0x1p-36f},    {4, -0x1.2p-33f},
      {5, 0x1.cp-34f},   {6, 0x1.98p-30f},  {7, 0x1.d8p-30f}, {8, -0x1.f8p-31f}, {10, 0x1.b8p-31f},
      {11, 0x1.dp-30f},  {12, 0x1p-33f},    {13, 0x1.d8p-31f}, {16, 0x1.74p-30f}};
  const double a = 9.9999999999999982, as_p[4] = {a, 99.999999999999986, 99.999999999999986, 1.9999999999999998};
  for (int c = 0; c < 3; c++) {
    const size_t n = c == 0 ? 21 : c == 1 ? N : 24;
    const char *name = c < 2 ? "entmax_halley" : "asentmax";
    memset(x, 0, n * sizeof x[0]);
    if (c == 0) memcpy(x, x21, sizeof x21);
    if (c == 1)
      for (size_t j = 0; j < sizeof x3154 / sizeof x3154[0]; j++) x[x3154[j].i] = x3154[j].v;
    if (c == 2) x[0] = -0x1.494848p-54f, x[1] = -0x1.494948p-54f, x[2] = 0x1p-137f;
    const double scale = c < 2 ? 1.0 : as_p[1] + as_p[2] * pow(log((double)n), as_p[3]);
    entmax_reference_ld(x, n, a, scale, ref);
    double rmax = 0.0;
    for (size_t i = 0; i < n; i++) rmax = fmax(rmax, ref[i]);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(N_(name), impl, x, n, c < 2 ? &a : as_p, c < 2 ? 1 : 4, y), SS_OK);
      for (size_t i = 0; i < n; i++)
        CHECK(fabs(y[i] - ref[i]) <= 0x1p-17 * ref[i] + 0x1p-19 * rmax, "%s %s n=%zu: y[%zu] %.9g, reference %.9g",
              name, ss_impl_name(impl), n, i, y[i], ref[i]);
    }
  }
}

/* ---- samplers ------------------------------------------------------------- */

/* The logit samplers with temperature = 1e-300 (and 5e-324): SIMD returned NaN
   probabilities and drew index 0, scalar rejected the input with
   SS_ERR_DOMAIN ("x / t overflowed"). Now both give the T -> 0 limit: the
   argmax, with probability 1, bit-identical. */
TEST(regress_samplers_temperature_1e_300) {
  const float x[5] = {0.5f, 2.0f, -INFINITY, 1.0f, 0.0f};
  int tested = 0;
  for (size_t ki = 0; ki < ss_kernel_count(); ki++) {
    const ss_kernel_info *k = ss_kernel_at(ki);
    bool has_t = false;
    for (size_t i = 0; i < k->nparams; i++) has_t |= !strcmp(k->params[i].name, "temperature");
    if (k->family != SS_FAMILY_SAMPLER || !has_t) continue;
    tested++;
    for (int t = 0; t < 2; t++) { /* 1e-300, and 5e-324 (the JS ledger's case) */
      double p[8];
      params_with(k, p, "temperature", t ? 0x1p-1074 : 1e-300);
      for (size_t i = 0; i < k->nparams; i++) {
        if (!strcmp(k->params[i].name, "draws")) p[i] = 3;
        if (!strcmp(k->params[i].name, "k")) p[i] = 2;
      }
      float probs0[5], probs1[5];
      uint32_t d0[3], d1[3];
      CHECK_STATUS(ss_sample(k, SS_IMPL_SCALAR, x, 5, p, k->nparams, probs0, d0, NULL), SS_OK);
      CHECK(probs0[1] == 1.0f && probs0[0] == 0.0f && probs0[3] == 0.0f && d0[0] == 1 && d0[2] == 1,
            "%s: [%g %g %g %g %g]", k->name, probs0[0], probs0[1], probs0[2], probs0[3], probs0[4]);
      if (ss_impl_available(SS_IMPL_SIMD)) {
        CHECK_STATUS(ss_sample(k, SS_IMPL_SIMD, x, 5, p, k->nparams, probs1, d1, NULL), SS_OK);
        CHECK(!memcmp(probs0, probs1, sizeof probs0) && !memcmp(d0, d1, sizeof d0), "%s: SIMD differs",
              k->name);
      }
    }
  }
  CHECK(tested >= 5, "only %d samplers have a temperature", tested);
}

/* ss_estimator_stats: tau = 1e-300 gave +-Inf and tau = 5e-324 NaN, with
   SS_OK, inside the documented range (0, 1e3]; the exact gradient of target
   {1e20, 0} was 0 (|t|^2 = 1e40 swallowed 2 t_i), and a target near 2.4e37
   over a small tau gave -Inf. Now: the tau -> 0 limit exactly (a one-hot
   softmax's Jacobian term is 0), the exact gradient against a long-double
   reference, -2 pi_i (t_i - <pi, t>), and SS_ERR_DOMAIN (nothing written)
   where float cannot hold an output. */
TEST(regress_estimator_stats_extreme_tau_and_targets) {
  const float theta[4] = {0.5f, 2.0f, 1.0f, 0.0f}, small_t[4] = {0.25f, 0.0f, 1.0f, 0.5f};
  const float big_t[4] = {1e20f, 0.0f, 0.0f, 0.0f};
  const float *targets[2] = {small_t, big_t};
  const double taus[4] = {1e-300, 0x1p-1074, 1e-30, 1.0};
  long double pi[4], s = 0.0L;
  for (int i = 0; i < 4; i++) s += (pi[i] = expl((long double)theta[i] - 2.0L));
  for (int i = 0; i < 4; i++) pi[i] /= s;
  for (int tg = 0; tg < 2; tg++) {
    long double pt = 0.0L, ref[4];
    for (int i = 0; i < 4; i++) pt += pi[i] * targets[tg][i];
    for (int i = 0; i < 4; i++) ref[i] = -2.0L * pi[i] * ((long double)targets[tg][i] - pt);
    for (int e = 0; e < SS_ESTIMATOR_COUNT; e++)
      for (int t = 0; t < 4; t++) {
        double bias = NAN, var = NAN;
        float mean[4], exact[4];
        CHECK_STATUS(ss_estimator_stats(e, theta, targets[tg], 4, taus[t], 7, 64, &bias, &var, mean, exact),
                     SS_OK);
        CHECK(isfinite(bias) && isfinite(var) && finite_row(mean, 4), "estimator %d tau %g target %d: bias %g var %g",
              e, taus[t], tg, bias, var);
        for (int i = 0; i < 4; i++)
          CHECK(fabsl(exact[i] - ref[i]) <= 1e-6L * fabsl(ref[i]), "target %d: exact[%d] = %.9g, reference %.9Lg",
                tg, i, exact[i], ref[i]);
        /* tau -> 0: ST and both Gumbel-Softmax estimates are exactly 0 (a
           one-hot softmax, distinct logits), so bias = |exact| */
        if (e != SS_ESTIMATOR_REINMAX && taus[t] <= 1e-30) {
          long double nb = 0.0L;
          for (int i = 0; i < 4; i++) nb += ref[i] * ref[i];
          CHECK(mean[0] == 0.0f && mean[1] == 0.0f && var == 0.0 && fabsl(bias - sqrtl(nb)) <= 1e-6L * sqrtl(nb),
                "estimator %d tau %g: mean %g %g var %g bias %g, want 0 0 0 %Lg", e, taus[t], mean[0], mean[1], var,
                bias, sqrtl(nb));
        }
      }
  }
  /* ties at tau = 1e-300: straight-through's (1/tau) J term is ~1e300, more
     than a float: SS_ERR_DOMAIN, nothing written; a target near FLT_MAX
     over tau = 1e-3 (~2e40), also */
  const float tied[3] = {1.0f, 1.0f, 0.0f}, huge_t[3] = {2.4e37f, 0.0f, 0.0f}, zero_t[3] = {0};
  double bias = -1.0, var = -1.0;
  float mean[3] = {CF_POISON, CF_POISON, CF_POISON}, exact[3] = {CF_POISON, CF_POISON, CF_POISON};
  CHECK_STATUS(ss_estimator_stats(SS_ESTIMATOR_ST, tied, zero_t, 3, 1e-300, 1, 16, &bias, &var, mean, exact),
               SS_ERR_DOMAIN);
  CHECK_STATUS(ss_estimator_stats(SS_ESTIMATOR_ST, tied, huge_t, 3, 1e-3, 1, 16, &bias, &var, mean, exact),
               SS_ERR_DOMAIN);
  CHECK(bias == -1.0 && var == -1.0 && cf_untouched(mean, 3) && cf_untouched(exact, 3), "written on error");
}

/* Gumbel-Softmax (and ReinMax's backward) with tau = 5e-324: SS_ERR_DOMAIN
   for an in-range tau (the float tau was 0); gumbel_sigmoid's VJP gave NaN.
   Now one-hot relaxed samples (the tau -> 0 limit), finite gradients. */
TEST(regress_gumbel_tiny_tau) {
  const float x[4] = {0.1f, 1.5f, -0.3f, -INFINITY};
  static const char *const names[] = {"gumbel_softmax", "gumbel_softmax_hard", "reinmax",
                                      "gumbel_sigmoid"};
  for (int k = 0; k < 4; k++) {
    const ss_kernel_info *K = S_(names[k]);
    double p[8];
    params_with(K, p, "tau", 0x1p-1074);
    for (size_t i = 0; i < K->nparams; i++)
      if (!strcmp(K->params[i].name, "draws")) p[i] = 2;
    float probs[4], s0[8], s1[8], g[8] = {1, -1, 0.5f, 2, 0.25f, 0, 1, -2}, dx[4];
    uint32_t idx[2];
    CHECK_STATUS(ss_sample(K, SS_IMPL_SCALAR, x, 4, p, K->nparams, probs, idx, s0), SS_OK);
    CHECK(finite_row(s0, 8), "%s: samples not finite", names[k]);
    for (int t = 0; t < 8; t++) CHECK(s0[t] == 0.0f || s0[t] == 1.0f, "%s: sample %g", names[k], s0[t]);
    if (ss_impl_available(SS_IMPL_SIMD)) {
      CHECK_STATUS(ss_sample(K, SS_IMPL_SIMD, x, 4, p, K->nparams, probs, idx, s1), SS_OK);
      CHECK(!memcmp(s0, s1, sizeof s0), "%s: SIMD differs", names[k]);
    }
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_sample_vjp(K, impl, x, 4, p, K->nparams, g, dx), SS_OK);
      CHECK(finite_row(dx, 4), "%s %s: dx not finite", names[k], ss_impl_name(impl));
    }
  }
}

/* categorical with subnormal weights gave +Inf probabilities (1 / sum
   overflowed), and with weights near FLT_MAX at n = 65539 probabilities
   summing to 1.002 (a subnormal 1 / sum); +-Inf weights were SS_ERR_DOMAIN
   unlike every other probability input (now SS_ERR_NONFINITE). */
TEST(regress_categorical_extreme_weight_totals) {
  const ss_kernel_info *k = S_("categorical");
  const double p[2] = {0, 4};
  const float tiny[3] = {0x1p-149f, 0x1p-148f, 0.0f};
  enum { N = 65539 };
  float *big = ss_test_alloc(N * 4), *probs = ss_test_alloc(N * 4);
  for (size_t i = 0; i < N; i++) big[i] = i % 3 ? FLT_MAX : 0.5f * FLT_MAX;
  uint32_t d[4];
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_sample(k, impl, tiny, 3, p, 2, probs, d, NULL), SS_OK);
    CHECK(fabsf(probs[0] - 1.0f / 3) < 1e-7f && fabsf(probs[1] - 2.0f / 3) < 1e-7f && probs[2] == 0.0f,
          "%s: [%g %g %g]", ss_impl_name(impl), probs[0], probs[1], probs[2]);
    CHECK_STATUS(ss_sample(k, impl, big, N, p, 2, probs, d, NULL), SS_OK);
    double s = 0.0;
    for (size_t i = 0; i < N; i++) s += probs[i];
    CHECK(fabs(s - 1.0) < 1e-5, "%s: sum %.9g", ss_impl_name(impl), s);
    const float inf[2] = {1.0f, INFINITY};
    CHECK_STATUS(ss_sample(k, impl, inf, 2, p, 2, probs, d, NULL), SS_ERR_NONFINITE);
  }
}

/* dirichlet with subnormal concentrations wrote NaN samples (log-gammas
   below -FLT_MAX rounded to -Inf in the float row, then -Inf - -Inf). */
TEST(regress_dirichlet_subnormal_concentrations) {
  const float a[4] = {0x1p-149f, 1e-44f, 0x1p-140f, 1e-40f};
  const double p[2] = {3, 5};
  float probs[4], s[20];
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_sample(S_("dirichlet"), impl, a, 4, p, 2, probs, NULL, s), SS_OK);
    for (int d = 0; d < 5; d++) {
      double sum = 0.0;
      for (int i = 0; i < 4; i++) {
        CHECK(isfinite(s[4 * d + i]) && s[4 * d + i] >= 0.0f, "%s: sample %g", ss_impl_name(impl), s[4 * d + i]);
        sum += s[4 * d + i];
      }
      CHECK(fabs(sum - 1.0) < 1e-6, "%s: draw %d sums to %.9g", ss_impl_name(impl), d, sum);
    }
  }
}

/* dare's survivors x / (1 - p) overflowed to +Inf with SS_OK for x near
   FLT_MAX; now SS_ERR_DOMAIN (samples not written), probs-only calls fine. */
TEST(regress_dare_rescale_overflow) {
  const float x[3] = {3.0e38f, -1.0f, 2.0f};
  const double p[4] = {0.5, 1, 0, 2};
  float probs[3], s[6];
  FOR_EACH_IMPL(impl) {
    memset(s, 0x7f, sizeof s);
    CHECK_STATUS(ss_sample(S_("dare"), impl, x, 3, p, 4, probs, NULL, s), SS_ERR_DOMAIN);
    CHECK(s[0] != 0.0f && isnan(s[0]) == 0, "samples written");
    CHECK_STATUS(ss_sample(S_("dare"), impl, x, 3, p, 4, probs, NULL, NULL), SS_OK);
  }
}

/* Samplers wrote their probs scratch before answering SS_ERR_ALL_MASKED. */
TEST(regress_sampler_all_masked_writes_nothing) {
  const float x[5] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY};
  for (size_t ki = 0; ki < ss_kernel_count(); ki++) {
    const ss_kernel_info *k = ss_kernel_at(ki);
    if (k->family != SS_FAMILY_SAMPLER || k->input != SS_INPUT_LOGITS) continue;
    double p[8];
    params_with(k, p, "k", 2);
    FOR_EACH_IMPL(impl) {
      float probs[5] = {7, 7, 7, 7, 7};
      CHECK_STATUS(ss_sample(k, impl, x, 5, p, k->nparams, probs, NULL, NULL), SS_ERR_ALL_MASKED);
      for (int i = 0; i < 5; i++) CHECK(probs[i] == 7.0f, "%s %s: probs written", k->name, ss_impl_name(impl));
    }
  }
}

/* ---- quantizers ----------------------------------------------------------- */

static const ss_kernel_info *Q_(const char *name) { return ss_kernel_find(name, SS_FAMILY_QUANTIZER); }

/* fp8 with scale = 1e-50: the float scale was 0, x / 0 gave +-Inf and NaN,
   values NaN and codes above 255. Now every value saturates (448 / 57344),
   codes are bytes, y = q scale (tiny or 0), and 0 stays 0. */
TEST(regress_fp8_scale_1e_50) {
  const float x[5] = {1.0f, -2.5f, 0.0f, 3e38f, -1e-30f};
  const double s = 1e-50;
  static const char *const names[] = {"fp8_e4m3", "fp8_e5m2"};
  for (int f = 0; f < 2; f++) {
    int32_t c0[5], c1[5];
    float y0[5], y1[5];
    FOR_EACH_IMPL(impl) {
      int32_t *c = impl == SS_IMPL_SCALAR ? c0 : c1;
      float *y = impl == SS_IMPL_SCALAR ? y0 : y1;
      CHECK_STATUS(ss_quantize(Q_(names[f]), impl, x, 5, &s, 1, c, y), SS_OK);
      for (int i = 0; i < 5; i++)
        CHECK(c[i] >= 0 && c[i] <= 255 && isfinite(y[i]) && fabsf(y[i]) < 1e-40f, "%s %s: code %d y %g",
              names[f], ss_impl_name(impl), (int)c[i], y[i]);
      CHECK(c[2] == 0 && y[2] == 0.0f && (c[1] & 0x80) && !(c[0] & 0x80), "%s: signs / zero", names[f]);
    }
    if (ss_impl_available(SS_IMPL_SIMD))
      CHECK(!memcmp(c0, c1, sizeof c0) && !memcmp(y0, y1, sizeof y0), "%s: impls differ", names[f]);
  }
}

/* uniform, asymmetric, on values at +-FLT_MAX: hi - lo overflowed float and
   every value came out NaN with SS_OK. */
TEST(regress_uniform_asymmetric_full_float_range) {
  const float x[4] = {3.0e38f, -3.0e38f, 0.0f, 1.0e38f};
  const double p[5] = {8, 0, 0, 0, 0};
  FOR_EACH_IMPL(impl) {
    int32_t c[4];
    float y[4];
    CHECK_STATUS(ss_quantize(Q_("uniform"), impl, x, 4, p, 5, c, y), SS_OK);
    for (int i = 0; i < 4; i++)
      CHECK(isfinite(y[i]) && fabs((double)y[i] - x[i]) <= 6.1e38 / 255.0, "%s: y[%d] = %g",
            ss_impl_name(impl), i, y[i]);
    CHECK(c[0] == 255 && c[1] == 0, "%s: codes %d %d", ss_impl_name(impl), (int)c[0], (int)c[1]);
  }
}

/* ss_vq_backward read x, g and the codebook unchecked (NaN in, NaN out with
   SS_OK) and converted 2 beta to float (undefined past FLT_MAX). */
TEST(regress_vq_backward_checks_its_inputs) {
  float x[4] = {1, 2, 3, 4}, cb[4] = {0, 0, 1, 1}, g[4] = {1, 1, 1, 1}, dx[4], dcb[4];
  const int32_t codes[2] = {0, 1};
  x[1] = NAN;
  CHECK_STATUS(ss_vq_backward(x, 2, 2, cb, 2, codes, g, 0.25, dx, dcb), SS_ERR_NAN);
  x[1] = 2;
  g[3] = INFINITY;
  CHECK_STATUS(ss_vq_backward(x, 2, 2, cb, 2, codes, g, 0.25, dx, dcb), SS_ERR_NONFINITE);
  g[3] = 1;
  cb[0] = -INFINITY;
  CHECK_STATUS(ss_vq_backward(x, 2, 2, cb, 2, codes, g, 0.25, dx, dcb), SS_ERR_NONFINITE);
  cb[0] = 0;
  CHECK_STATUS(ss_vq_backward(x, 2, 2, cb, 2, codes, g, 1e300, dx, dcb), SS_ERR_DOMAIN);
  CHECK_STATUS(ss_vq_backward(x, 2, 2, cb, 2, codes, g, 0.25, dx, dcb), SS_OK);
  CHECK(dx[0] == 1.5f && dx[3] == 2.5f && dcb[0] == -2.0f, "dx %g %g dcb %g", dx[0], dx[3], dcb[0]);
}

/* Size helpers wrapped around for lengths past SS_MAX_N. */
TEST(regress_size_helpers_do_not_wrap) {
  CHECK(ss_packed_bytes((size_t)-1, 8) == 0 && ss_packed_bytes(SS_MAX_N + 1, 2) == 0, "packed bytes");
  CHECK(ss_packed_bytes(SS_MAX_N, 8) == SS_MAX_N, "packed bytes at SS_MAX_N");
  const ss_kernel_info *k = ss_kernel_find("amsgrad", SS_FAMILY_OPTIMIZER);
  CHECK(ss_opt_state_size(k, (size_t)-1 / 2) == 0 && ss_opt_state_size(k, 10) == 30, "state size");
}

/* Fuzzer (regress-pow2-subnormal-max): pow2 (2 bits) on a row whose max is
   the subnormal 1.0ap-142 next to zeros: 1 / max overflowed float, 0 * Inf
   was NaN and scalar and SIMD chose different levels for the zeros. Now the
   row is scaled by 2^64 first; both impls agree bit for bit and the max is
   its own level. Same for log_quant. */
TEST(regress_pow2_log_quant_subnormal_max) {
  const float x[9] = {0x1.0ap-142f, 0, 0, 0, 0, 0x1p-145f, 0, 0, 0};
  static const char *const names[] = {"pow2", "log_quant"};
  for (int q = 0; q < 2; q++) {
    const ss_kernel_info *k = Q_(names[q]);
    double p[4];
    params_with(k, p, "bits", 2);
    int32_t c0[9], c1[9];
    float y0[9], y1[9];
    FOR_EACH_IMPL(impl) {
      int32_t *c = impl == SS_IMPL_SCALAR ? c0 : c1;
      float *y = impl == SS_IMPL_SCALAR ? y0 : y1;
      CHECK_STATUS(ss_quantize(k, impl, x, 9, p, k->nparams, c, y), SS_OK);
      CHECK(y[0] == x[0], "%s %s: y[0] = %a", names[q], ss_impl_name(impl), y[0]);
      for (int i = 0; i < 9; i++)
        CHECK(isfinite(y[i]) && y[i] >= 0 && y[i] <= x[0], "%s %s: y[%d] = %a", names[q], ss_impl_name(impl), i,
              y[i]);
    }
    if (ss_impl_available(SS_IMPL_SIMD))
      CHECK(!memcmp(c0, c1, sizeof c0) && !memcmp(y0, y1, sizeof y0), "%s: impls differ", names[q]);
  }
}

/* Conformance (adaround [all random, huge, signed]): the dequantized top
   code (q - z) s of a range reaching 3.3e38 rounded past FLT_MAX: y = +Inf
   with SS_OK. Now held at +-FLT_MAX as uniform's, in the registry form and
   in the direct call (whose nearest-rounding error was then Inf too). */
TEST(regress_adaround_huge_weights_stay_finite) {
  const float w[8] = {3.3361e38f, -FLT_MAX, 1.0f, FLT_MAX, -3.0e38f, 2.9e38f, 0.0f, -1e30f};
  float x[4 * 8], wq[8], scratch[256];
  int32_t c[8];
  for (int i = 0; i < 32; i++) x[i] = (float)((i * 37) % 11) - 5.0f;
  for (int bits = 2; bits <= 8; bits++)
    for (int sym = 0; sym < 2; sym++)
      FOR_EACH_IMPL(impl) {
        const double p[9] = {bits, sym, 4, 8, 0.5, 5, 0.1, 0.01, 3};
        float y[8];
        CHECK_STATUS(ss_quantize(Q_("adaround"), impl, w, 8, p, 9, c, y), SS_OK);
        for (int i = 0; i < 8; i++)
          CHECK(isfinite(y[i]), "%s bits %d sym %d: y[%d] = %g", ss_impl_name(impl), bits, sym, i, y[i]);
        double st[SS_ADAROUND_NSTATS];
        CHECK_STATUS(ss_adaround(impl, w, 2, 4, x, 8, bits, sym, 5, 0.1, 0.01, wq, c, scratch, st), SS_OK);
        for (int i = 0; i < 8; i++)
          CHECK(isfinite(wq[i]), "%s direct bits %d sym %d: wq[%d] = %g", ss_impl_name(impl), bits, sym, i, wq[i]);
        CHECK(isfinite(st[SS_ADAROUND_ERR]) && isfinite(st[SS_ADAROUND_ERR_NEAREST]), "%s bits %d sym %d: errors %g %g",
              ss_impl_name(impl), bits, sym, st[SS_ADAROUND_ERR], st[SS_ADAROUND_ERR_NEAREST]);
      }
}

/* Conformance (adaround [defaults] n = 65539): the registry form keeps its
   state on the stack and takes n <= 8192, a limit the testers and the JS
   could only learn from its name. The registry states it (max_n, also in
   ss_registry_json); ss_quantize checks it for every kernel. */
TEST(regress_kernel_own_size_limit_in_registry) {
  const ss_kernel_info *k = Q_("adaround");
  const size_t lim = ss_kernel_max_n(k);
  CHECK(lim == 8192, "adaround max_n %zu", lim);
  CHECK(ss_kernel_max_n(Q_("uniform")) == SS_MAX_N, "uniform: SS_MAX_N");
  float *x = ss_test_alloc((lim + 1) * 4), *y = ss_test_alloc((lim + 1) * 4);
  int32_t *c = ss_test_alloc((lim + 1) * 4);
  for (size_t i = 0; i <= lim; i++) x[i] = (float)(i % 7) - 3.0f;
  double p[9];
  params_with(k, p, "iters", 1);
  FOR_EACH_IMPL(impl) {
    y[0] = 7.0f;
    CHECK_STATUS(ss_quantize(k, impl, x, lim + 1, p, 9, c, y), SS_ERR_TOO_LARGE);
    CHECK(y[0] == 7.0f, "%s: y written", ss_impl_name(impl));
  }
  size_t len = 0;
  CHECK_STATUS(ss_registry_json(NULL, 0, &len), SS_ERR_BUFFER);
  char *json = ss_test_alloc(len + 1);
  CHECK_STATUS(ss_registry_json(json, len + 1, &len), SS_OK);
  const char *at = strstr(json, "{\"name\":\"adaround\"");
  const char *next = at ? strstr(at + 1, "{\"name\":") : NULL;
  const char *mx = at ? strstr(at, "\"max_n\":8192") : NULL;
  CHECK(mx && (!next || mx < next), "registry JSON: adaround's max_n");
}

/* ---- optimizers ----------------------------------------------------------- */

static const ss_kernel_info *O_(const char *name) { return ss_kernel_find(name, SS_FAMILY_OPTIMIZER); }

/* LARS / LAMB / perpGrad took their norms in float in SIMD: gradients of
   3e19 overflowed (NaN where scalar was finite); LAMB's |w| of weights
   1e-44 underflowed to 0 (a step 1e7 times the scalar one). */
TEST(regress_optimizer_norms_in_double) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  static const char *const names[] = {"lars", "lamb", "perpgrad", "adagrad_norm", "sam"};
  const float big[8] = {3e19f, -2e19f, 1e19f, 5e18f, -3e19f, 1e19f, 2e19f, -1e19f};
  const float tiny[8] = {1e-44f, -3e-44f, 2e-44f, 1e-44f, -1e-44f, 4e-44f, 1e-44f, 2e-44f};
  for (int k = 0; k < 5; k++) {
    const ss_kernel_info *K = O_(names[k]);
    double p[8];
    for (size_t i = 0; i < K->nparams; i++) p[i] = K->params[i].def;
    for (int c = 0; c < 2; c++) {
      const float *w0 = c ? tiny : big, *g0 = c ? tiny : big;
      float w[2][8], sl[2][24] = {{0}};
      double sc[2][SS_OPT_SCALARS] = {{0}};
      ss_status s[2];
      for (int impl = 0; impl < 2; impl++) {
        memcpy(w[impl], w0, sizeof w[impl]);
        s[impl] = ss_optimize(K, (ss_impl)impl, w[impl], g0, 8, p, K->nparams, sl[impl], sc[impl]);
      }
      CHECK(s[0] == s[1], "%s case %d: scalar %d SIMD %d", names[k], c, (int)s[0], (int)s[1]);
      if (s[0] != SS_OK) continue;
      for (int i = 0; i < 8; i++)
        CHECK(isfinite(w[1][i]) && fabs((double)w[1][i] - w[0][i]) <= 1e-5 * (fabs(w[0][i]) + fabs(w0[i])),
              "%s case %d w[%d]: SIMD %g scalar %g", names[k], c, i, w[1][i], w[0][i]);
    }
  }
}

/* eps = 5e-324 (inside (0, 1]) rounded to a float 0: a coordinate whose
   gradient history is 0 stepped 0 / 0 = NaN with SS_OK. */
TEST(regress_optimizer_eps_below_float) {
  static const char *const names[] = {"adam", "adamw", "amsgrad", "adabelief", "rmsprop",
                                      "adagrad", "lamb", "adabound", "amsbound"};
  const float w0[5] = {1, -2, 0, 0.5f, 3}, g[5] = {0.5f, 0, 0, -1, 2};
  for (int k = 0; k < 9; k++) {
    const ss_kernel_info *K = O_(names[k]);
    double p[8];
    params_with(K, p, "eps", 0x1p-1074);
    FOR_EACH_IMPL(impl) {
      float w[5], sl[15] = {0};
      double sc[SS_OPT_SCALARS] = {0};
      memcpy(w, w0, sizeof w);
      CHECK_STATUS(ss_optimize(K, impl, w, g, 5, p, K->nparams, sl, sc), SS_OK);
      CHECK(finite_row(w, 5) && w[2] == 0.0f, "%s %s: w[2] = %g", names[k], ss_impl_name(impl), w[2]);
    }
  }
}

/* The JS ledger's last entries (param-extremes.test.js): adagrad_norm
   b0 = 5e-324 and adam_atan2 b = 5e-324, the rest at the defaults, with a
   zero gradient (n = 1) returned NaN with SS_OK in both builds (b0^2 and b
   as floats were 0: 0 / 0). Fixed with the eps rule above; now w stays. */
TEST(regress_optimizer_tiny_b0_and_b) {
  static const char *const names[][2] = {{"adagrad_norm", "b0"}, {"adam_atan2", "b"}};
  const float g[1] = {0.0f};
  for (int k = 0; k < 2; k++) {
    const ss_kernel_info *K = O_(names[k][0]);
    double p[8];
    params_with(K, p, names[k][1], 0x1p-1074);
    FOR_EACH_IMPL(impl) {
      float w[1] = {0.75f}, sl[3] = {0};
      double sc[SS_OPT_SCALARS] = {0};
      for (int step = 0; step < 3; step++)
        CHECK_STATUS(ss_optimize(K, impl, w, g, 1, p, K->nparams, sl, sc), SS_OK);
      CHECK(w[0] == 0.75f, "%s %s: w = %g after zero gradients", names[k][0], ss_impl_name(impl), w[0]);
    }
  }
}

/* A step that overflows float returned SS_OK with +-Inf weights (SGD, lr
   1e6, weights near FLT_MAX): now SS_ERR_DOMAIN, the counter not advanced.
   AdaBound with gamma = 1e-300 (in range) converted its upper bound 1e305
   to float: undefined behaviour (float-cast-overflow), now FLT_MAX. */
TEST(regress_optimizer_overflow_and_huge_bounds) {
  float w[3] = {3e38f, -1.0f, 2.0f};
  const float g[3] = {1.0f, 1.0f, 1.0f};
  const double p[2] = {1e6, 1e3};
  FOR_EACH_IMPL(impl) {
    double sc[SS_OPT_SCALARS] = {0};
    w[0] = 3e38f, w[1] = -1, w[2] = 2;
    CHECK_STATUS(ss_optimize(O_("sgd"), impl, w, g, 3, p, 2, NULL, sc), SS_ERR_DOMAIN);
    CHECK(sc[0] == 0.0, "the counter advanced");
    const ss_kernel_info *ab = O_("adabound");
    double q[7];
    params_with(ab, q, "gamma", 1e-300);
    float w2[3] = {1, -1, 0.5f}, sl[6] = {0};
    CHECK_STATUS(ss_optimize(ab, impl, w2, g, 3, q, 7, sl, sc), SS_OK);
    CHECK(finite_row(w2, 3), "adabound: not finite");
  }
}

/* ---- losses and measures -------------------------------------------------- */

static const ss_kernel_info *L_(const char *name) { return ss_kernel_find(name, SS_FAMILY_LOSS); }

/* entmax_bisect_loss with alpha just above 1 gave 0 or 1.6e6 (1 - sum p^a
   over a = 2^-52): now it tends to the cross-entropy, as the loss does. */
TEST(regress_entmax_bisect_loss_tends_to_cross_entropy) {
  const float x[5] = {0.5f, -1.0f, 2.0f, 0.25f, 1.5f};
  const double pc[1] = {3};
  double ce;
  float g[5];
  CHECK_STATUS(ss_loss(L_("cross_entropy"), SS_IMPL_SCALAR, x, 5, pc, 1, &ce, g), SS_OK);
  const double alphas[] = {1.0 + 0x1p-52, 1.0 + 1e-9, 1.0 + 1e-6};
  for (int a = 0; a < 3; a++)
    FOR_EACH_IMPL(impl) {
      const double p[2] = {3, alphas[a]};
      double l;
      CHECK_STATUS(ss_loss(L_("entmax_bisect_loss"), impl, x, 5, p, 2, &l, g), SS_OK);
      CHECK(fabs(l - ce) <= 1e-5 * ce + 2.0 * (alphas[a] - 1.0), "%s alpha-1 = %g: loss %.9g, CE %.9g",
            ss_impl_name(impl), alphas[a] - 1.0, l, ce);
    }
}

/* Fenchel-Young losses on logits near +-FLT_MAX: the SIMD sum of
   p (x - x_t) took x - x_t in float (+Inf where scalar was 3.9e38); and a
   masked target wrote grad before SS_ERR_DOMAIN. */
TEST(regress_fy_loss_huge_logits_and_masked_target) {
  const float x[4] = {3e38f, -3e38f, 2e38f, 0.0f};
  static const char *const names[] = {"sparsemax_loss", "entmax15_loss"};
  for (int k = 0; k < 2; k++) {
    const double p[1] = {1};
    double l0 = 0, l1 = 0;
    float g[4];
    CHECK_STATUS(ss_loss(L_(names[k]), SS_IMPL_SCALAR, x, 4, p, 1, &l0, g), SS_OK);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_loss(L_(names[k]), impl, x, 4, p, 1, &l1, g), SS_OK);
      CHECK(isfinite(l1) && fabs(l1 - l0) <= 1e-6 * l0, "%s %s: loss %g vs %g", names[k],
            ss_impl_name(impl), l1, l0);
      const float xm[3] = {-INFINITY, 1.0f, 2.0f};
      float gm[3] = {7, 7, 7};
      double lm = 7;
      CHECK_STATUS(ss_loss(L_(names[k]), impl, xm, 3, (double[]){0}, 1, &lm, gm), SS_ERR_DOMAIN);
      CHECK(gm[0] == 7 && gm[1] == 7 && lm == 7, "%s: written on a masked target", names[k]);
    }
  }
}

/* Tsallis entropy of weights near FLT_MAX at alpha = 1000: -Inf with
   SS_OK (sum p^a beyond double); now SS_ERR_DOMAIN, out untouched. */
TEST(regress_measure_beyond_double_is_domain) {
  const float p[2] = {3e38f, 1.0f};
  const double a = 1000.0;
  FOR_EACH_IMPL(impl) {
    double out = 7;
    CHECK_STATUS(ss_measure(ss_kernel_find("tsallis_entropy", SS_FAMILY_MEASURE), impl, p, NULL, 2,
                            &a, 1, &out),
                 SS_ERR_DOMAIN);
    CHECK(out == 7, "out written");
  }
}

/* Conformance (kurtosis and max_median_ratio at n = 1): a measure of
   values is undefined on a vector with no spread or no typical magnitude,
   SS_ERR_DOMAIN as the header states (the tester expected SS_OK); defined
   single values still work. */
TEST(regress_values_measures_degenerate_inputs) {
  const ss_kernel_info *ku = ss_kernel_find("kurtosis", SS_FAMILY_MEASURE),
                       *mm = ss_kernel_find("max_median_ratio", SS_FAMILY_MEASURE);
  const float one[1] = {-3.0f}, zero[1] = {0.0f}, flat[5] = {2.5f, 2.5f, 2.5f, 2.5f, 2.5f};
  const float half0[4] = {0.0f, 0.0f, 0.0f, 5.0f}, two[4] = {0.0f, 0.0f, 1.0f, 4.0f};
  FOR_EACH_IMPL(impl) {
    double out = 7.0;
    CHECK_STATUS(ss_measure(ku, impl, one, NULL, 1, NULL, 0, &out), SS_ERR_DOMAIN);
    CHECK_STATUS(ss_measure(ku, impl, flat, NULL, 5, NULL, 0, &out), SS_ERR_DOMAIN);
    CHECK_STATUS(ss_measure(mm, impl, zero, NULL, 1, NULL, 0, &out), SS_ERR_DOMAIN);
    CHECK_STATUS(ss_measure(mm, impl, half0, NULL, 4, NULL, 0, &out), SS_ERR_DOMAIN);
    CHECK(out == 7.0, "%s: out written", ss_impl_name(impl));
    CHECK_STATUS(ss_measure(mm, impl, one, NULL, 1, NULL, 0, &out), SS_OK);
    CHECK(out == 1.0, "%s: R of one value %g", ss_impl_name(impl), out);
    CHECK_STATUS(ss_measure(mm, impl, two, NULL, 4, NULL, 0, &out), SS_OK);
    CHECK(out == 8.0, "%s: R = 4 / ((0 + 1) / 2) = %g", ss_impl_name(impl), out);
  }
}

/* ---- attention ------------------------------------------------------------ */

/* ss_attention_scratch_size cast an out-of-range `features` (NaN, 1e300) to
   size_t: undefined behaviour, reported by UBSan's float-cast-overflow. */
TEST(regress_attention_scratch_size_invalid_features) {
  const ss_kernel_info *k = ss_kernel_find("performer", SS_FAMILY_ATTENTION);
  float buf[64];
  const ss_attention_io io = {buf, buf, buf, 2, 2, 4, 4, 1, NULL, NULL, NULL, 0, buf, NULL, buf};
  /* the kernel's own parameter count and order (the registry's): a fixed
     array overflowed when performer gained `orthogonal` */
  double *p = ss_test_alloc(k->nparams * sizeof *p);
  long f = -1;
  for (size_t i = 0; i < k->nparams; i++) {
    p[i] = k->params[i].def;
    if (!strcmp(k->params[i].name, "features")) f = (long)i;
  }
  p[0] = 1; /* heads */
  CHECK(f >= 0, "performer has no `features` parameter");
  if (f < 0) return;
  p[f] = NAN;
  CHECK(ss_attention_scratch_size(k, &io, p) == 0, "NaN features");
  p[f] = 1e300;
  CHECK(ss_attention_scratch_size(k, &io, p) == 0, "1e300 features");
  p[f] = -1e300;
  CHECK(ss_attention_scratch_size(k, &io, p) == 0, "-1e300 features");
  p[f] = 16;
  CHECK(ss_attention_scratch_size(k, &io, p) == 2 * 16 + 16 * 4 + 2 * 16 + 16 * 4, "16 features");
}

/* sdpa with |q| = |k| = 1e20: scores beyond FLT_MAX became -Inf (a silent
   mask) or +Inf (SS_ERR_POS_INF, a misleading status); now SS_ERR_DOMAIN
   (beyond SS_ATTN_QK_MAX). */
TEST(regress_attention_score_overflow) {
  float q[4] = {1e20f, 1e20f, -1e20f, 1e20f}, k[4] = {1e20f, 1e20f, 1e20f, -1e20f}, v[4] = {1, 2, 3, 4};
  float out[4], scratch[8];
  const ss_attention_io io = {q, k, v, 2, 2, 2, 2, 1, NULL, N_("softmax"), NULL, 0, out, NULL, scratch};
  const double p[3] = {1, 0, 0};
  FOR_EACH_IMPL(impl)
    CHECK_STATUS(ss_attend(ss_kernel_find("sdpa", SS_FAMILY_ATTENTION), impl, &io, p, 3), SS_ERR_DOMAIN);
}

/* Fuzzer (regress-sdpa-score-sum-order): q, k near 2^39 .. 2^41 whose
   products summed to beyond FLT_MAX in one order and not in the other:
   scalar SS_ERR_DOMAIN, SIMD SS_OK. |q|, |k| <= SS_ATTN_QK_MAX = 2^40 now
   bounds every partial sum (any order is finite), beyond it SS_ERR_DOMAIN. */
TEST(regress_attention_qk_bound) {
  enum { N = 3, D = 5 };
  float q[N * D], k[N * D], v[N * D], out[N * D], o0[N * D], scratch[4 * N * N + 64];
  for (size_t i = 0; i < N * D; i++)
    q[i] = (i % 3 ? 1.0f : -1.0f) * SS_ATTN_QK_MAX, k[i] = (i % 2 ? -1.0f : 1.0f) * SS_ATTN_QK_MAX,
    v[i] = (float)i;
  const ss_attention_io io = {q, k, v, N, N, D, D, 1, NULL, N_("softmax"), NULL, 0, out, NULL, scratch};
  const ss_kernel_info *sdpa = ss_kernel_find("sdpa", SS_FAMILY_ATTENTION);
  CHECK(ss_attention_scratch_size(sdpa, &io, (double[]){1, 0, 0}) <= sizeof scratch / sizeof *scratch,
        "scratch");
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_attend(sdpa, impl, &io, (double[]){1, 0, 0}, 3), SS_OK);
    CHECK(finite_row(out, N * D), "%s: non-finite output", ss_impl_name(impl));
    if (impl == SS_IMPL_SCALAR) memcpy(o0, out, sizeof o0);
    else
      for (size_t i = 0; i < N * D; i++)
        CHECK(fabsf(out[i] - o0[i]) <= 1e-4f * 14, "SIMD out[%zu] = %g, scalar %g", i, out[i], o0[i]);
  }
  q[7] = nextafterf(SS_ATTN_QK_MAX, INFINITY);
  FOR_EACH_IMPL(impl) CHECK_STATUS(ss_attend(sdpa, impl, &io, (double[]){1, 0, 0}, 3), SS_ERR_DOMAIN);
  q[7] = 1.0f, k[14] = -nextafterf(SS_ATTN_QK_MAX, INFINITY);
  FOR_EACH_IMPL(impl) CHECK_STATUS(ss_attend(sdpa, impl, &io, (double[]){1, 0, 0}, 3), SS_ERR_DOMAIN);
}

/* Conformance (hrf [heads 3, masked] n = 1 m = 1): the one visible key got
   weight 1.00126 in SIMD and 1 in scalar. The signed (trigonometric)
   features' products cancel; the normalizer was summed in scalar order in
   both impls but each weight's product by ops->dot in SIMD order. Now the
   weights of a signed map are summed in scalar order too: the same bits in
   both impls, and a single key gets den / den. */
TEST(regress_signed_feature_weights_match_across_impls) {
  if (!ss_impl_available(SS_IMPL_SIMD)) return;
  enum { H = 3, D = 9 };
  static const size_t shapes[][2] = {{1, 1}, {3, 5}, {6, 2}};
  static const char *const names[] = {"hrf", "trig"};
  for (int kn = 0; kn < 2; kn++)
    for (int sh = 0; sh < 3; sh++)
      for (uint64_t seed = 0; seed < 12; seed++) {
        const ss_kernel_info *k = ss_kernel_find(names[kn], SS_FAMILY_ATTENTION);
        const size_t n = shapes[sh][0], m = shapes[sh][1];
        float q[6 * D], kk[5 * D], v[5 * D], out[6 * D], a[2][H * 6 * 5];
        ss_normal(seed, 7, 0, n * D, q);
        ss_normal(seed, 8, 0, m * D, kk);
        ss_normal(seed, 9, 0, m * D, v);
        double *p = ss_test_alloc(k->nparams * sizeof *p);
        params_with(k, p, "heads", H);
        ss_attention_io io = {q, kk, v, n, m, D, D, H, NULL, NULL, NULL, 0, out, NULL, NULL};
        io.scratch = ss_test_alloc(ss_attention_scratch_size(k, &io, p) * sizeof(float));
        ss_status st[2];
        FOR_EACH_IMPL(impl) {
          io.attn = a[impl];
          st[impl] = ss_attend(k, impl, &io, p, k->nparams);
        }
        CHECK(st[0] == st[1], "%s seed %llu: statuses %s, %s", names[kn], (unsigned long long)seed,
              ss_status_name(st[0]), ss_status_name(st[1]));
        if (st[0] != SS_OK || st[1] != SS_OK) continue;
        CHECK(!memcmp(a[0], a[1], H * n * m * sizeof(float)), "%s %zux%zu seed %llu: weights differ", names[kn], n, m,
              (unsigned long long)seed);
        if (m == 1)
          for (size_t t = 0; t < H * n; t++)
            CHECK(fabsf(a[0][t] - 1.0f) <= 0x1p-23f, "%s seed %llu: single key weight %.9g", names[kn],
                  (unsigned long long)seed, a[0][t]);
      }
}

/* ss_attention_kernel_estimate did not check dv, which the header called
   unused, yet its scratch is ss_attention_scratch_size floats, which
   depends on dv (the projections sit after the engine's part for dv / heads
   values) and is 0 for dv = 0 or dv > SS_ATTN_MAX_DIM: a caller that sized
   the scratch as told got writes past it (dv = 0: the engine's part and
   the projections; dv too large: the projections, far past). dv is now
   checked as ss_attend checks it, before anything is written. */
TEST(regress_kernel_estimate_checks_dv) {
  enum { N = 2, M = 3, D = 4 };
  float q[N * D], k[M * D];
  double est[N * M];
  ss_normal(3, 1, 0, N * D, q);
  ss_normal(3, 2, 0, M * D, k);
  static const char *const names[] = {"performer", "trig", "hrf"};
  static const size_t bad_dv[] = {SS_ATTN_MAX_DIM + 1, 0};
  static const ss_status want[] = {SS_ERR_TOO_LARGE, SS_ERR_EMPTY};
  for (int t = 0; t < 3; t++) {
    const ss_kernel_info *K = ss_kernel_find(names[t], SS_FAMILY_ATTENTION);
    double *p = ss_test_alloc(K->nparams * sizeof *p);
    params_with(K, p, "heads", 1);
    FOR_EACH_IMPL(impl) {
      for (int b = 0; b < 2; b++) {
        ss_attention_io io = {q, k, NULL, N, M, D, bad_dv[b], 1, NULL, NULL, NULL, 0, NULL, NULL, NULL};
        const size_t sz = ss_attention_scratch_size(K, &io, p);
        CHECK(sz == 0, "%s dv %zu: scratch size %zu", names[t], bad_dv[b], sz);
        io.scratch = ss_test_alloc(sizeof(float)); /* what a size of 0 asks for, at least */
        est[0] = 7.0;
        CHECK_STATUS(ss_attention_kernel_estimate(K, impl, &io, p, K->nparams, est), want[b]);
        CHECK(est[0] == 7.0, "%s dv %zu: est written", names[t], bad_dv[b]);
      }
      ss_attention_io io = {q, k, NULL, N, M, D, D, 1, NULL, NULL, NULL, 0, NULL, NULL, NULL};
      io.scratch = ss_test_alloc(ss_attention_scratch_size(K, &io, p) * sizeof(float));
      CHECK_STATUS(ss_attention_kernel_estimate(K, impl, &io, p, K->nparams, est), SS_OK);
      CHECK(isfinite(est[0]), "%s: est[0] = %g", names[t], est[0]);
    }
  }
}

/* Fuzzer (regress-trig-estimate-huge-k): ss_attention_kernel_estimate did
   not apply ss_attend's |q|, |k| <= SS_ATTN_QK_MAX: keys near 2^71 made
   |y|^2 / 2 overflow float and the trig features exp(Inf - Inf) = NaN,
   returned with SS_OK. Within the bound, an estimate whose row scales
   exp(shift_i + shift_j) overflow double was +-Inf or NaN (0 Inf) with
   SS_OK. Both are SS_ERR_DOMAIN now, in both impls; moderate inputs give
   finite estimates, bit-identical for the signed (trig, hrf) maps. */
TEST(regress_kernel_estimate_huge_inputs) {
  enum { N = 2, M = 3, D = 4 };
  float q[N * D], k[M * D], kbig[M * D], qk40[N * D], kk40[M * D];
  double est[2][N * M];
  ss_normal(5, 1, 0, N * D, q);
  ss_normal(5, 2, 0, M * D, k);
  for (int i = 0; i < M * D; i++) kbig[i] = k[i] * 0x1p71f, kk40[i] = i % 2 ? SS_ATTN_QK_MAX : -SS_ATTN_QK_MAX;
  for (int i = 0; i < N * D; i++) qk40[i] = i % 2 ? SS_ATTN_QK_MAX : -SS_ATTN_QK_MAX;
  static const char *const names[] = {"performer", "trig", "hrf"};
  for (int t = 0; t < 3; t++) {
    const ss_kernel_info *K = ss_kernel_find(names[t], SS_FAMILY_ATTENTION);
    double *p = ss_test_alloc(K->nparams * sizeof *p);
    params_with(K, p, "heads", 1);
    ss_attention_io io = {q, k, NULL, N, M, D, D, 1, NULL, NULL, NULL, 0, NULL, NULL, NULL};
    io.scratch = ss_test_alloc(ss_attention_scratch_size(K, &io, p) * sizeof(float));
    FOR_EACH_IMPL(impl) {
      io.q = q, io.k = kbig;
      CHECK_STATUS(ss_attention_kernel_estimate(K, impl, &io, p, K->nparams, est[impl]), SS_ERR_DOMAIN);
      /* at the bound: trig's and hrf's scales exp(|x|^2 / 2 + |y|^2 / 2)
         overflow; performer's positive features give exp(-|x|^2 / 2 ...)
         scales, finite (the estimator's samples are ~0 there) */
      io.q = qk40, io.k = kk40;
      const ss_status s = ss_attention_kernel_estimate(K, impl, &io, p, K->nparams, est[impl]);
      CHECK(t == 0 ? s == SS_OK : s == SS_ERR_DOMAIN, "%s %s at |q|, |k| = 2^40: %s", names[t], ss_impl_name(impl),
            ss_status_name(s));
      for (int i = 0; s == SS_OK && i < N * M; i++)
        CHECK(isfinite(est[impl][i]), "%s at the bound: est[%d] = %g", names[t], i, est[impl][i]);
      io.q = q, io.k = k;
      CHECK_STATUS(ss_attention_kernel_estimate(K, impl, &io, p, K->nparams, est[impl]), SS_OK);
      for (int i = 0; i < N * M; i++)
        CHECK(isfinite(est[impl][i]), "%s %s: est[%d] = %g", names[t], ss_impl_name(impl), i, est[impl][i]);
    }
    if (ss_impl_available(SS_IMPL_SIMD) && t > 0)
      CHECK(!memcmp(est[0], est[1], sizeof est[0]), "%s: signed-map estimates differ between impls", names[t]);
  }
}
