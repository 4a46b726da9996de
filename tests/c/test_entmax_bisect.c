/*
 * alpha-entmax forward: entmax_bisect and entmax_halley (the same function,
 * two solvers), every test over both kernels and both implementations.
 *
 * Stated bounds (registry stopping rule |sum - 1| <= 1e-6, then y / sum):
 *   sum y = 1 within EM_SUM = 2e-7 (the sum divided by is taken in
 *     double; the float 1/sum and each product round once: <= 2^-23 plus the
 *     rounding of y; measured <= 9.2e-8);
 *   vs float64 references, alpha in (1, 2]: |y - ref| <= EM_ABS = 1e-6
 *     (the stop leaves |f| <= 1e-6 and the division removes most of it;
 *     measured <= 5.8e-7 bisection, <= 1.7e-7 Halley over random rows);
 *   alpha > 2 adds the first-order effect of rounding d_i = (alpha-1)(x_i - m)
 *     to float, 2 s_i 2^-23 with s_i = ref_i^{2-alpha} (the map is not
 *     Lipschitz near support changes there);
 *   SIMD vs scalar: within the same bound of each other (they stop at
 *     slightly different |f|; measured 0.2 of it).
 * Measured worst over the reference test: 0.45 of the bound (bisection),
 * 0.06 (Halley, which overshoots the tolerance); entmax15 closed form 1.1e-7,
 * sparsemax 3.0e-7; alpha = 1.001 vs softmax 0.30 of its bound.
 */
#include <string.h>

#include "entmax_reference.h"
#include "harness.h"
#include "reference.h"
#include "softmax_testing.h"

#define EM_SUM 2e-7
#define EM_ABS 1e-6

static const ss_kernel_info *KB(void) {
  return ss_kernel_find("entmax_bisect", SS_FAMILY_NORMALIZER);
}
static const ss_kernel_info *KH(void) {
  return ss_kernel_find("entmax_halley", SS_FAMILY_NORMALIZER);
}
#define FOR_EACH_KERNEL(k)                                        \
  for (int k##_i = 0; k##_i < 2; k##_i++)                         \
    for (const ss_kernel_info *k = k##_i ? KH() : KB(); k; k = NULL)

static double bound_at(double alpha, double ref) {
  if (alpha <= 2.0 || ref <= 0.0) return EM_ABS;
  return EM_ABS + 2.0 * pow(ref, 2.0 - alpha) * 0x1p-23;
}

TEST(entmax_descriptors) {
  FOR_EACH_KERNEL(k) {
    CHECK(k && k->nparams == 1 && k->has_backward && k->has_param_backward &&
              k->output == SS_OUTPUT_PROBS && k->normalize_param_vjp[SS_IMPL_SCALAR],
          "descriptor");
    const ss_param_info *p = &k->params[0];
    CHECK(strcmp(p->name, "alpha") == 0 && p->type == SS_PARAM_FLOAT && p->min == 1.0 &&
              p->min_open && p->max == 10.0 && !p->max_open && p->def == 1.5 &&
              p->ui_min == 1.01 && p->ui_max == 4.0,
          "%s param info", k->name);
  }
}

static const double alphas[] = {1.001, 1.01, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0, 10.0};
#define NALPHAS (sizeof alphas / sizeof alphas[0])

/* Sums to one, non-negative, and exact zeros: every entry whose float64
   score is below the threshold by more than 1e-4 is exactly +0, every one
   above it by more than 1e-4 is positive; alpha >= 1.25 on a wide row has
   real zeros. */
TEST(entmax_sums_to_one_exact_zeros) {
  static const size_t ns[] = {1, 2, 3, 5, 16, 17, 37, 100, 1000, 4099};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
    double *ref = ss_test_alloc(n * 8), *xd = ss_test_alloc(n * 8);
    st_fill(x, n, 100 + n, -6.0f, 6.0f);
    double m = -INFINITY;
    for (size_t i = 0; i < n; i++) {
      xd[i] = x[i];
      m = fmax(m, x[i]);
    }
    for (size_t a = 0; a < NALPHAS; a++) {
      const double al = alphas[a];
      er_entmax64(xd, n, al, ref);
      /* u_i = (alpha-1)(x_i - m) - theta, recovered from the reference */
      double theta = 0.0;
      for (size_t i = 0; i < n; i++)
        if (ref[i] > 0.0) theta = (al - 1.0) * (xd[i] - m) - pow(ref[i], al - 1.0);
      FOR_EACH_KERNEL(k) FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(k, impl, x, n, &al, 1, y), SS_OK);
        double s = 0.0;
        size_t zeros = 0;
        for (size_t i = 0; i < n; i++) {
          CHECK(y[i] >= 0.0f && !signbit(y[i]), "%s %s a=%g n=%zu: y[%zu]=%g", k->name,
                ss_impl_name(impl), al, n, i, y[i]);
          s += y[i];
          zeros += y[i] == 0.0f;
          const double u = (al - 1.0) * (xd[i] - m) - theta;
          if (u < -1e-4) CHECK(y[i] == 0.0f, "%s %s a=%g n=%zu: y[%zu]=%g below threshold",
                               k->name, ss_impl_name(impl), al, n, i, y[i]);
          if (u > 1e-4) CHECK(y[i] > 0.0f, "%s %s a=%g n=%zu: y[%zu]=0 above threshold",
                              k->name, ss_impl_name(impl), al, n, i);
        }
        CHECK(fabs(s - 1.0) <= EM_SUM, "%s %s a=%g n=%zu: sum %.9g", k->name,
              ss_impl_name(impl), al, n, s);
        if (n >= 1000 && al >= 1.25)
          CHECK(zeros > n / 2, "%s a=%g n=%zu: only %zu zeros", k->name, al, n, zeros);
      }
    }
  }
}

/* alpha = 2 is sparsemax: against a sort-based float64 sparsemax. */
TEST(entmax_alpha2_is_sparsemax) {
  static const size_t ns[] = {1, 2, 7, 16, 33, 100, 1000, 5000};
  const double al = 2.0;
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
    double *ref = ss_test_alloc(n * 8);
    for (int sc = 0; sc < 3; sc++) {
      const float r = sc == 0 ? 0.5f : sc == 1 ? 3.0f : 30.0f;
      st_fill(x, n, 200 + n + sc, -r, r);
      if (n > 3) x[n / 2] = -INFINITY;
      er_sparsemax(x, n, ref);
      FOR_EACH_KERNEL(k) FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(k, impl, x, n, &al, 1, y), SS_OK);
        for (size_t i = 0; i < n; i++)
          CHECK(fabs(y[i] - ref[i]) <= EM_ABS, "%s %s n=%zu i=%zu: %.9g vs sparsemax %.9g",
                k->name, ss_impl_name(impl), n, i, y[i], ref[i]);
      }
    }
  }
}

/* alpha = 1.5 is the exact entmax15 (sort-based closed form). */
TEST(entmax_alpha15_is_exact_entmax15) {
  static const size_t ns[] = {1, 3, 8, 17, 64, 257, 1000, 5000};
  const double al = 1.5;
  double worst = 0.0;
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
    double *ref = ss_test_alloc(n * 8);
    for (int sc = 0; sc < 3; sc++) {
      const float r = sc == 0 ? 0.5f : sc == 1 ? 4.0f : 40.0f;
      st_fill(x, n, 300 + n + sc, -r, r);
      er_entmax15(x, n, ref);
      FOR_EACH_KERNEL(k) FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(k, impl, x, n, &al, 1, y), SS_OK);
        for (size_t i = 0; i < n; i++) {
          const double e = fabs(y[i] - ref[i]);
          worst = fmax(worst, e);
          CHECK(e <= EM_ABS, "%s %s n=%zu i=%zu: %.9g vs entmax15 %.9g", k->name,
                ss_impl_name(impl), n, i, y[i], ref[i]);
        }
      }
    }
  }
  CHECK(worst <= EM_ABS, "worst %g", worst);
}

/* Against the float64 bisection reference over alpha in (1, 10]. */
TEST(entmax_matches_float64_reference) {
  static const size_t ns[] = {2, 5, 16, 37, 300, 4097};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
    double *ref = ss_test_alloc(n * 8);
    for (size_t a = 0; a < NALPHAS; a++) {
      const double al = alphas[a];
      st_fill(x, n, 400 + n + a, -4.0f, 4.0f);
      er_entmax64_f(x, n, al, ref);
      FOR_EACH_KERNEL(k) FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(k, impl, x, n, &al, 1, y), SS_OK);
        for (size_t i = 0; i < n; i++)
          CHECK(fabs(y[i] - ref[i]) <= bound_at(al, ref[i]),
                "%s %s a=%g n=%zu i=%zu: %.9g vs %.9g", k->name, ss_impl_name(impl), al, n, i,
                y[i], ref[i]);
      }
    }
  }
}

/* alpha -> 1 tends to softmax q: to first order in a = alpha - 1,
   y_i = q_i (1 - (a/2)(L_i^2 - sum_j q_j L_j^2)), L = log q; the test allows
   twice that term plus EM_ABS, and checks the term is what separates them
   (alpha = 1.001 is closer to softmax than alpha = 1.01). */
TEST(entmax_near_one_is_softmax) {
  enum { N = 200 };
  float x[N], y[N];
  double q[N];
  st_fill(x, N, 55, -5.0f, 5.0f);
  ref_softmax(x, N, 1.0, q);
  double ql2 = 0.0;
  for (size_t i = 0; i < N; i++) ql2 += q[i] * log(q[i]) * log(q[i]);
  FOR_EACH_KERNEL(k) FOR_EACH_IMPL(impl) {
    double dist[2];
    const double as[2] = {1.001, 1.01};
    for (int j = 0; j < 2; j++) {
      CHECK_STATUS(ss_normalize(k, impl, x, N, &as[j], 1, y), SS_OK);
      const double a = as[j] - 1.0;
      dist[j] = 0.0;
      for (size_t i = 0; i < N; i++) {
        const double L = log(q[i]), e = fabs(y[i] - q[i]);
        const double b = a * q[i] * (L * L + ql2) + EM_ABS;
        CHECK(e <= b, "%s %s a=%g i=%zu: %.9g vs softmax %.9g", k->name, ss_impl_name(impl),
              as[j], i, y[i], q[i]);
        dist[j] = fmax(dist[j], e);
      }
    }
    CHECK(dist[0] < dist[1] && dist[0] < 1e-3, "%s %s: distances %g %g", k->name,
          ss_impl_name(impl), dist[0], dist[1]);
  }
}

TEST(entmax_simd_vs_scalar) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  static const size_t ns[] = {1, 3, 4, 7, 8, 9, 31, 129, 1000, 20001};
  double worst = 0.0;
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *a = ss_test_alloc(n * 4), *b = ss_test_alloc(n * 4);
    st_fill(x, n, 500 + n, -8.0f, 8.0f);
    for (size_t j = 0; j < NALPHAS; j++) {
      FOR_EACH_KERNEL(k) {
        CHECK_STATUS(ss_normalize(k, SS_IMPL_SCALAR, x, n, &alphas[j], 1, a), SS_OK);
        CHECK_STATUS(ss_normalize(k, SS_IMPL_SIMD, x, n, &alphas[j], 1, b), SS_OK);
        for (size_t i = 0; i < n; i++) {
          const double e = fabs(a[i] - b[i]);
          worst = fmax(worst, e);
          CHECK(e <= bound_at(alphas[j], a[i]), "%s a=%g n=%zu i=%zu: %.9g vs %.9g",
                k->name, alphas[j], n, i, a[i], b[i]);
        }
      }
    }
  }
}

/* -Inf entries are masks: exactly +0, the rest as on the compacted row
   (float64 reference of the subset within the bound, and within 2 EM_ABS
   of the kernel on the compacted row). */
TEST(entmax_masking) {
  static const size_t ns[] = {1, 2, 7, 16, 37, 64, 1000};
  static const double as[] = {1.25, 1.5, 2.0, 3.0};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4), *sub = ss_test_alloc(n * 4),
          *ysub = ss_test_alloc(n * 4);
    double *ref = ss_test_alloc(n * 8);
    st_fill(x, n, 600 + n, -3.0f, 3.0f);
    ss_rng r = {n};
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
      if (i + 1 < n && ss_rng_unif(&r) < 0.4) x[i] = -INFINITY;
      else sub[m++] = x[i];
    }
    for (size_t j = 0; j < sizeof as / sizeof as[0]; j++) {
      er_entmax64_f(sub, m, as[j], ref);
      FOR_EACH_KERNEL(k) FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(k, impl, x, n, &as[j], 1, y), SS_OK);
        CHECK_STATUS(ss_normalize(k, impl, sub, m, &as[j], 1, ysub), SS_OK);
        for (size_t i = 0, c = 0; i < n; i++) {
          if (x[i] == -INFINITY) {
            CHECK(y[i] == 0.0f && !signbit(y[i]), "%s %s: masked y[%zu]=%g", k->name,
                  ss_impl_name(impl), i, y[i]);
            continue;
          }
          CHECK(fabs(y[i] - ref[c]) <= bound_at(as[j], ref[c]) &&
                    fabs(y[i] - ysub[c]) <= 2.0 * bound_at(as[j], ref[c]),
                "%s %s a=%g n=%zu i=%zu: %.9g vs subset %.9g / compacted %.9g", k->name,
                ss_impl_name(impl), as[j], n, i, y[i], ref[c], ysub[c]);
          c++;
        }
      }
    }
  }
}

/* Closed cases: n = 1 and a single unmasked entry give exactly 1; a max
   ahead of the rest by more than 1/(alpha-1) gives the exact one-hot; all
   equal gives 1/n (within 2 ulp: 1/sum and the product round). */
TEST(entmax_closed_cases) {
  enum { N = 19 };
  float x[N], y[N];
  FOR_EACH_KERNEL(k) FOR_EACH_IMPL(impl) {
    for (size_t j = 0; j < NALPHAS; j++) {
      const double al = alphas[j];
      const float one = 0.25f;
      CHECK_STATUS(ss_normalize(k, impl, &one, 1, &al, 1, y), SS_OK);
      CHECK(y[0] == 1.0f, "%s %s a=%g: n=1 gives %g", k->name, ss_impl_name(impl), al, y[0]);
      for (size_t i = 0; i < N; i++) x[i] = -INFINITY;
      x[11] = -3.0f;
      CHECK_STATUS(ss_normalize(k, impl, x, N, &al, 1, y), SS_OK);
      for (size_t i = 0; i < N; i++)
        CHECK(y[i] == (i == 11 ? 1.0f : 0.0f), "%s %s a=%g: single unmasked y[%zu]=%g",
              k->name, ss_impl_name(impl), al, i, y[i]);
      st_fill(x, N, 7, -1.0f, 1.0f);
      x[4] = 1.0f + 1.01f / (float)(al - 1.0);
      CHECK_STATUS(ss_normalize(k, impl, x, N, &al, 1, y), SS_OK);
      for (size_t i = 0; i < N; i++)
        CHECK(y[i] == (i == 4 ? 1.0f : 0.0f), "%s %s a=%g: one-hot y[%zu]=%g", k->name,
              ss_impl_name(impl), al, i, y[i]);
      for (size_t i = 0; i < N; i++) x[i] = 0.75f;
      CHECK_STATUS(ss_normalize(k, impl, x, N, &al, 1, y), SS_OK);
      for (size_t i = 0; i < N; i++)
        CHECK(ss_ulp_diff(y[i], 1.0f / N) <= 2, "%s %s a=%g: uniform y[%zu]=%.9g", k->name,
              ss_impl_name(impl), al, i, y[i]);
    }
  }
}

/* Thresholds too close to the max for a float pair: alpha = 10 with
   c = 30000 tied maxima puts tau within c^{-9} ~ 2^-134 of (alpha-1) max
   (below the normal floats), where the SIMD path runs the double pass;
   5000 ties (2^-111) and alpha = 4 with 2^12 ties (2^-36) stay on the
   float pair. The ties get 1/c each (2 ulp), the rest exactly 0, the sum is
   1 within EM_SUM, and Halley takes <= 12 passes in both impls (measured 10;
   14 for SIMD without the double pass). */
TEST(entmax_ties_tiny_threshold) {
  enum { N = 40001 };
  float *x = ss_test_alloc(N * 4), *y = ss_test_alloc(N * 4);
  static const double as[] = {10.0, 10.0, 4.0};
  static const size_t ties[] = {30000, 5000, 4096};
  for (int j = 0; j < 3; j++) {
    st_fill(x, N, 66, -3.0f, -0.5f);
    for (size_t i = 0; i < ties[j]; i++) x[(i * 7919) % N] = 0.25f;
    size_t c = 0;
    for (size_t i = 0; i < N; i++) c += x[i] == 0.25f;
    FOR_EACH_IMPL(impl) {
      unsigned it = 0;
      CHECK_STATUS(ss_entmax_solve(impl, SS_ENTMAX_HALLEY, x, N, as[j], 1e-6, 100, y, NULL, &it),
                   SS_OK);
      CHECK(it <= 12, "%s a=%g, %zu ties: %u Halley passes", ss_impl_name(impl), as[j], c, it);
    }
    FOR_EACH_KERNEL(k) FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(k, impl, x, N, &as[j], 1, y), SS_OK);
      double sum = 0.0;
      for (size_t i = 0; i < N; i++) sum += y[i];
      CHECK(fabs(sum - 1.0) <= EM_SUM, "%s %s a=%g: sum %.9g", k->name, ss_impl_name(impl),
            as[j], sum);
      for (size_t i = 0; i < N; i++) {
        if (x[i] == 0.25f)
          CHECK(ss_ulp_diff(y[i], (float)(1.0 / c)) <= 2, "%s %s a=%g: tie y[%zu]=%.9g, 1/%zu",
                k->name, ss_impl_name(impl), as[j], i, y[i], c);
        else
          CHECK(y[i] == 0.0f, "%s %s a=%g: y[%zu]=%g", k->name, ss_impl_name(impl), as[j], i,
                y[i]);
      }
    }
  }
}

/* Shift invariance and huge spreads: x + c gives the same y (within the
   bound); logits +-3e38 give no NaN. */
TEST(entmax_shift_and_extremes) {
  enum { N = 41 };
  float x[N], xs[N], y[N], ys[N];
  st_fill(x, N, 77, -2.0f, 2.0f);
  for (size_t i = 0; i < N; i++) xs[i] = x[i] + 1000.0f;
  const float ext[4] = {3e38f, -3e38f, 0.0f, -3e38f};
  FOR_EACH_KERNEL(k) FOR_EACH_IMPL(impl) {
    for (size_t j = 0; j < NALPHAS; j++) {
      /* 1000 + x rounds x to 2^-14: compare against the rounded row */
      float xr[N];
      for (size_t i = 0; i < N; i++) xr[i] = xs[i] - 1000.0f;
      CHECK_STATUS(ss_normalize(k, impl, xr, N, &alphas[j], 1, y), SS_OK);
      CHECK_STATUS(ss_normalize(k, impl, xs, N, &alphas[j], 1, ys), SS_OK);
      for (size_t i = 0; i < N; i++)
        CHECK(fabs(y[i] - ys[i]) <= 2.0 * bound_at(alphas[j], y[i]),
              "%s %s a=%g: shift y[%zu] %.9g vs %.9g", k->name, ss_impl_name(impl),
              alphas[j], i, y[i], ys[i]);
      CHECK_STATUS(ss_normalize(k, impl, ext, 4, &alphas[j], 1, y), SS_OK);
      CHECK(y[0] == 1.0f && y[1] == 0.0f && y[2] == 0.0f && y[3] == 0.0f,
            "%s %s a=%g: extremes [%g %g %g %g]", k->name, ss_impl_name(impl), alphas[j],
            y[0], y[1], y[2], y[3]);
    }
  }
}

/* Large n (2^20 + 3: every loop tail) against the closed forms. */
TEST(entmax_large_n) {
  const size_t n = ((size_t)1 << 20) + 3;
  float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
  double *ref = ss_test_alloc(n * 8);
  st_fill(x, n, 900, -6.0f, 6.0f);
  for (int j = 0; j < 2; j++) {
    const double al = j ? 2.0 : 1.5;
    if (j) er_sparsemax(x, n, ref);
    else er_entmax15(x, n, ref);
    FOR_EACH_KERNEL(k) FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(k, impl, x, n, &al, 1, y), SS_OK);
      double s = 0.0, worst = 0.0;
      for (size_t i = 0; i < n; i++) {
        s += y[i];
        worst = fmax(worst, fabs(y[i] - ref[i]));
      }
      CHECK(worst <= EM_ABS && fabs(s - 1.0) <= EM_SUM, "%s %s a=%g: err %g sum %.9g",
            k->name, ss_impl_name(impl), al, worst, s);
    }
  }
}

/* Direct calls: ss_entmax_bisect / _halley equal ss_normalize;
   ss_entmax_solve reports tau with y_i = [(alpha-1) x_i - tau]_+^k / S and
   its own argument errors. */
/* ss_entmax_solve: either solver, its tolerance and iteration cap. (The
   plain direct calls are rows of test_direct_calls.c.) */
TEST(entmax_solve_call) {
  enum { N = 50 };
  float x[N], a[N], b[N];
  st_fill(x, N, 12, -3, 3);
  const double al = 1.7;
  FOR_EACH_IMPL(impl) {
    for (int sv = 0; sv < 2; sv++) {
      double tau = NAN;
      unsigned it = 0;
      CHECK_STATUS(ss_entmax_solve(impl, (ss_entmax_solver)sv, x, N, al, 1e-9, 200, a, &tau,
                                   &it),
                   SS_OK);
      CHECK(it >= 1 && it <= 200 && isfinite(tau), "%s: it=%u tau=%g", ss_impl_name(impl), it,
            tau);
      double s = 0.0, p[N];
      for (size_t i = 0; i < N; i++) {
        const double u = (al - 1.0) * x[i] - tau;
        p[i] = u > 0.0 ? pow(u, 1.0 / (al - 1.0)) : 0.0;
        s += p[i];
      }
      CHECK(fabs(s - 1.0) <= 1e-5, "%s solver %d: sum of p(tau) = %.9g", ss_impl_name(impl), sv,
            s);
      for (size_t i = 0; i < N; i++)
        CHECK(fabs(a[i] - p[i] / s) <= 2e-6, "%s solver %d: y[%zu]=%.9g, p(tau)=%.9g",
              ss_impl_name(impl), sv, i, a[i], p[i] / s);
      /* max_iter = 1: exactly one pass */
      CHECK_STATUS(ss_entmax_solve(impl, (ss_entmax_solver)sv, x, N, al, 0.0, 1, a, NULL, &it),
                   SS_OK);
      CHECK(it == 1, "max_iter 1 made %u", it);
    }
    st_poison(b, N);
    CHECK_STATUS(ss_entmax_solve(impl, SS_ENTMAX_BISECT, x, N, al, -1.0, 10, b, NULL, NULL),
                 SS_ERR_PARAM_RANGE);
    CHECK_STATUS(ss_entmax_solve(impl, SS_ENTMAX_BISECT, x, N, al, NAN, 10, b, NULL, NULL),
                 SS_ERR_PARAM_RANGE);
    CHECK_STATUS(ss_entmax_solve(impl, SS_ENTMAX_HALLEY, x, N, al, 1e-6, 0, b, NULL, NULL),
                 SS_ERR_PARAM_RANGE);
    CHECK_STATUS(ss_entmax_solve(impl, (ss_entmax_solver)2, x, N, al, 1e-6, 10, b, NULL, NULL),
                 SS_ERR_PARAM_RANGE);
    CHECK_STATUS(ss_entmax_solve(impl, SS_ENTMAX_HALLEY, x, N, 0.9, 1e-6, 10, b, NULL, NULL),
                 SS_ERR_PARAM_RANGE);
    CHECK_STATUS(ss_entmax_solve(impl, SS_ENTMAX_HALLEY, x, 0, al, 1e-6, 10, b, NULL, NULL),
                 SS_ERR_EMPTY);
    CHECK_STATUS(ss_entmax_solve(impl, SS_ENTMAX_HALLEY, NULL, N, al, 1e-6, 10, b, NULL, NULL),
                 SS_ERR_NULL);
    x[3] = NAN;
    CHECK_STATUS(ss_entmax_solve(impl, SS_ENTMAX_HALLEY, x, N, al, 1e-6, 10, b, NULL, NULL),
                 SS_ERR_NAN);
    x[3] = 0.5f;
    CHECK(st_untouched(b, N), "%s: y written on error", ss_impl_name(impl));
  }
  if (!ss_impl_available(SS_IMPL_SIMD))
    CHECK_STATUS(ss_entmax_solve(SS_IMPL_SIMD, SS_ENTMAX_HALLEY, x, N, al, 1e-6, 10, b, NULL,
                                 NULL),
                 SS_ERR_UNSUPPORTED);
}
