/*
 * softmax_temperature: y = softmax(x / T).
 *
 * Stated bound vs float64 softmax(x / T) for outputs >= 1e-30: softmax's
 *   |y_i - y64_i| <= TEMP_A y64_i,  TEMP_A = 2e-6,
 * at every T: the exponent z_i = (x_i - max) / T is formed in double, so
 * neither 1/T nor the product is rounded to float (which cost up to
 * 2^-24 |z_i| each: 5.2e-6 measured for logits of scale 20 at T = 0.37).
 * Measured over T in 1e-3..1e4, logits of scale 10 and 20, n in 1..67, 255,
 * 4097, 65539: max rel err 3e-7. SIMD vs scalar: <= 8 ulp.
 */
#include <float.h>
#include <string.h>

#include "harness.h"
#include "reference.h"
#include "softmax_testing.h"

#define TEMP_A 2e-6

static const ss_kernel_info *KT(void) {
  return ss_kernel_find("softmax_temperature", SS_FAMILY_NORMALIZER);
}
static const ss_kernel_info *KS(void) {
  return ss_kernel_find("softmax", SS_FAMILY_NORMALIZER);
}

TEST(temperature_descriptor) {
  const ss_kernel_info *k = KT();
  CHECK(k && k->nparams == 1 && k->has_backward && k->output == SS_OUTPUT_PROBS,
        "descriptor");
  const ss_param_info *p = &k->params[0];
  CHECK(strcmp(p->name, "temperature") == 0 && p->type == SS_PARAM_FLOAT && p->min == 0.0 &&
            p->min_open && p->max == 1e4 && !p->max_open && p->def == 1.0 && p->log_scale &&
            p->ui_min == 0.05 && p->ui_max == 20.0,
        "param info");
}

/* T = 1 runs softmax's own code path: bitwise equal, both impls. */
TEST(temperature_one_is_softmax_bitwise) {
  static const size_t ns[] = {1, 3, 16, 17, 67, 1000, 4099};
  const double t1[1] = {1.0};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *a = ss_test_alloc(n * 4), *b = ss_test_alloc(n * 4);
    st_fill(x, n, 20 + n, -40, 40);
    if (n > 2) x[1] = -INFINITY;
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(KT(), impl, x, n, t1, 1, a), SS_OK);
      CHECK_STATUS(ss_normalize(KS(), impl, x, n, NULL, 0, b), SS_OK);
      CHECK(memcmp(a, b, n * 4) == 0, "%s n=%zu: T=1 differs from softmax", ss_impl_name(impl), n);
    }
  }
}

static const double temps[] = {1e-3, 0.05, 0.3, 0.37, 0.9, 1.7, 5.0, 20.0, 300.0, 1e4};
#define NTEMPS (sizeof temps / sizeof temps[0])

/* Logits of scale 10 and 20: at T = 0.37 the scale-20 row reaches the
   smallest outputs (|z| ~ 69) where a float exponent lost 5e-6. */
TEST(temperature_matches_float64_reference) {
  static const size_t big[] = {255, 4097, 65539};
  double worst = 0.0; /* of err / TEMP_A */
  for (size_t c = 0; c < 2 * (67 + 3); c++) {
    const size_t n = c % 70 < 67 ? c % 70 + 1 : big[c % 70 - 67];
    const float scale = c < 70 ? 10.0f : 20.0f;
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
    double *ref = ss_test_alloc(n * 8);
    st_fill(x, n, 40 + n, -scale, scale);
    float m = -INFINITY;
    for (size_t i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
    for (size_t k = 0; k < NTEMPS; k++) {
      const double T = temps[k];
      ref_softmax(x, n, 1.0 / T, ref);
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(KT(), impl, x, n, &T, 1, y), SS_OK);
        for (size_t i = 0; i < n; i++) {
          const double e = fabs(y[i] - ref[i]);
          if (ref[i] < 1e-30) {
            CHECK(e < 1e-30, "%s T=%g n=%zu i=%zu: y=%g ref=%g", ss_impl_name(impl), T, n, i,
                  y[i], ref[i]);
            continue;
          }
          const double z = ((double)x[i] - m) / T;
          const double r = e / (TEMP_A * ref[i]);
          CHECK(r <= 1.0, "%s T=%g n=%zu i=%zu: y=%.9g ref=%.9g (z=%g)", ss_impl_name(impl), T,
                n, i, y[i], ref[i], z);
          if (r > worst) worst = r;
        }
      }
    }
    ss_test_free(x);
    ss_test_free(y);
    ss_test_free(ref);
  }
  CHECK(worst <= 1.0, "worst ratio %.3g", worst);
}

/* SIMD vs scalar for T != 1: both within the stated bound of float64, and
   exps of the same double exponent: <= 8 ulp for outputs >= 1e-30. */
/* The subnormal rule at T = 0.37, 1 and 5 (common/softmax_row.h). */
TEST(temperature_subnormal_rule) {
  static const double ts[] = {0.37, 1.0, 5.0};
  for (size_t k = 0; k < 3; k++) st_check_subnormal_rule(KT(), &ts[k], 1, 1.0 / ts[k], TEMP_A, 137.25f);
}

TEST(temperature_simd_vs_scalar) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  uint32_t worst = 0;
  for (size_t c = 0; c < 67; c++) {
    const size_t n = c + 1;
    float x[67], a[67], b[67];
    st_fill(x, n, 60 + n, -10, 10);
    for (size_t k = 0; k < NTEMPS; k++) {
      CHECK_STATUS(ss_normalize(KT(), SS_IMPL_SCALAR, x, n, &temps[k], 1, a), SS_OK);
      CHECK_STATUS(ss_normalize(KT(), SS_IMPL_SIMD, x, n, &temps[k], 1, b), SS_OK);
      for (size_t i = 0; i < n; i++) {
        if (a[i] < 1e-30f) continue;
        const uint32_t u = ss_ulp_diff(a[i], b[i]);
        if (u > worst) worst = u;
      }
    }
  }
  CHECK(worst <= 8, "worst %u ulp", worst);
}

static double entropy(const float *y, size_t n) {
  double h = 0.0;
  for (size_t i = 0; i < n; i++)
    if (y[i] > 0.0f) h -= (double)y[i] * log((double)y[i]);
  return h;
}

/* Entropy rises with T on a fixed vector (strictly, up to rounding: 1e-6),
   from ~0 at small T to ~log n at large T. */
TEST(temperature_entropy_rises_with_t) {
  enum { N = 50 };
  float x[N], y[N];
  st_fill(x, N, 77, -6, 6);
  FOR_EACH_IMPL(impl) {
    double prev = -1.0;
    for (int k = 0; k <= 60; k++) {
      const double T = 0.01 * pow(1e6, k / 60.0); /* 0.01 .. 1e4, log grid */
      CHECK_STATUS(ss_normalize(KT(), impl, x, N, &T, 1, y), SS_OK);
      const double h = entropy(y, N);
      CHECK(h > prev - 1e-6, "%s: H(T=%g) = %.9g < H(prev) = %.9g", ss_impl_name(impl), T, h, prev);
      CHECK(h <= log((double)N) + 1e-6, "%s: H(T=%g) = %.9g > log n", ss_impl_name(impl), T, h);
      if (k == 0) CHECK(h < 1e-3, "%s: H(0.01) = %g", ss_impl_name(impl), h);
      if (k == 60) CHECK(h > log((double)N) - 1e-5, "%s: H(1e4) = %.9g", ss_impl_name(impl), h);
      prev = h;
    }
  }
}

/* T -> 0: the argmax one-hot, tied maxima share the mass equally. T = 1e-6
   goes through the exp path (gaps >= 0.01 give exp(-1e4) = 0); T = 1e-40
   makes 1/T overflow float and takes the explicit argmax path. */
TEST(temperature_tiny_t_is_argmax) {
  enum { N = 37 };
  float x[N], y[N];
  static const double tiny[] = {1e-6, 1e-20, 1e-40, 5e-324};
  ss_rng r = {5};
  for (size_t i = 0; i < N; i++) x[i] = (float)((int)(ss_rng_unif(&r) * 200)) * 0.01f;
  x[9] = 3.0f;  /* unique max */
  x[33] = -INFINITY;
  FOR_EACH_IMPL(impl) {
    for (size_t k = 0; k < sizeof tiny / sizeof tiny[0]; k++) {
      CHECK_STATUS(ss_normalize(KT(), impl, x, N, &tiny[k], 1, y), SS_OK);
      for (size_t i = 0; i < N; i++)
        CHECK(y[i] == (i == 9 ? 1.0f : 0.0f), "%s T=%g: y[%zu]=%g", ss_impl_name(impl), tiny[k], i, y[i]);
      float xt[N];
      memcpy(xt, x, sizeof xt);
      xt[2] = xt[20] = xt[36] = 3.0f; /* four tied maxima */
      CHECK_STATUS(ss_normalize(KT(), impl, xt, N, &tiny[k], 1, y), SS_OK);
      for (size_t i = 0; i < N; i++) {
        const bool tied = i == 2 || i == 9 || i == 20 || i == 36;
        CHECK(y[i] == (tied ? 0.25f : 0.0f), "%s T=%g ties: y[%zu]=%g", ss_impl_name(impl),
              tiny[k], i, y[i]);
      }
      xt[20] = 2.99f; /* three tied: 1/3 each, as close as float gets */
      CHECK_STATUS(ss_normalize(KT(), impl, xt, N, &tiny[k], 1, y), SS_OK);
      CHECK(ss_ulp_diff(y[2], 1.0f / 3.0f) <= 1 && y[2] == y[9] && y[9] == y[36] && y[20] == 0.0f,
            "%s T=%g three ties: %a %a %a", ss_impl_name(impl), tiny[k], y[2], y[9], y[36]);
    }
  }
}

/* T = 1e4 (the max): near uniform over the unmasked entries. For logits
   spread over R, |n y_i - 1| <= e^{R/T} - 1 ~ R/T; masked entries stay 0. */
TEST(temperature_large_t_is_uniform) {
  enum { N = 1000 };
  float *x = ss_test_alloc(N * 4), *y = ss_test_alloc(N * 4);
  st_fill(x, N, 88, -50, 50);
  x[10] = -INFINITY;
  const double T = 1e4, bound = expm1(100.0 / T) + 1e-5;
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(KT(), impl, x, N, &T, 1, y), SS_OK);
    double worst = 0.0;
    for (size_t i = 0; i < N; i++) {
      if (i == 10) {
        CHECK(y[i] == 0.0f, "%s: masked %g", ss_impl_name(impl), y[i]);
        continue;
      }
      worst = fmax(worst, fabs((N - 1) * (double)y[i] - 1.0));
    }
    CHECK(worst <= bound, "%s: max |n y - 1| = %.3g > %.3g", ss_impl_name(impl), worst, bound);
  }
}

/* VJP vs central differences of <g, softmax(x / T)> in float64:
   dx_j = y_j (g_j - <g, y>) / T; tolerance as for softmax, scaled by 1/T,
   with the output's stated relative error. */
TEST(temperature_vjp_matches_finite_differences) {
  static const size_t ns[] = {1, 2, 5, 16, 17, 40};
  static const double ts[] = {0.25, 0.7, 1.0, 3.0, 50.0};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4), *g = ss_test_alloc(n * 4),
          *dx = ss_test_alloc(n * 4);
    double *fd = ss_test_alloc(n * 8), *p = ss_test_alloc(n * 8);
    st_fill(x, n, 700 + n, -3.0f, 3.0f);
    st_fill(g, n, 800 + n, -2.0f, 2.0f);
    double G = 0.0;
    for (size_t i = 0; i < n; i++) G += fabs(g[i]);
    for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++) {
      const double T = ts[k];
      st_fd_vjp(st_model_softmax, x, g, n, T, 1e-5 * T, fd);
      ref_softmax(x, n, 1.0 / T, p);
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(KT(), impl, x, n, &T, 1, y), SS_OK);
        CHECK_STATUS(ss_normalize_vjp(KT(), impl, x, y, g, n, &T, 1, dx), SS_OK);
        for (size_t j = 0; j < n; j++) {
          const double rel = 4.0 * TEMP_A;
          const double tol = (rel * p[j] * (fabs(g[j]) + G) + 1e-9 * G) / T;
          CHECK(fabs(dx[j] - fd[j]) <= tol, "%s T=%g n=%zu j=%zu: dx=%.9g fd=%.9g",
                ss_impl_name(impl), T, n, j, dx[j], fd[j]);
        }
      }
    }
  }
}

/* At tiny T the one-hot output's VJP is 0 (the Jacobian vanishes away from
   ties), not NaN, even where 1/T overflows. */
TEST(temperature_vjp_tiny_t) {
  enum { N = 9 };
  const float x[N] = {0.5f, 1.0f, -2.0f, 3.0f, 0.0f, -INFINITY, 2.0f, 1.5f, -1.0f};
  const float g[N] = {1, -2, 3, -4, 5, -6, 7, -8, 9};
  float y[N], dx[N];
  static const double tiny[] = {1e-6, 1e-40, 5e-324};
  FOR_EACH_IMPL(impl) {
    for (size_t k = 0; k < 3; k++) {
      CHECK_STATUS(ss_normalize(KT(), impl, x, N, &tiny[k], 1, y), SS_OK);
      CHECK_STATUS(ss_normalize_vjp(KT(), impl, x, y, g, N, &tiny[k], 1, dx), SS_OK);
      for (size_t i = 0; i < N; i++)
        CHECK(dx[i] == 0.0f, "%s T=%g: dx[%zu]=%g", ss_impl_name(impl), tiny[k], i, dx[i]);
    }
  }
}

/* T <= 0, NaN, +-Inf and T > 1e4 are SS_ERR_PARAM_RANGE through ss_normalize
   and ss_normalize_vjp; y / dx untouched. T = 1e4 and tiny T > 0 are fine. */
TEST(temperature_param_range) {
  enum { N = 21 };
  float x[N], y[N], g[N], dx[N];
  st_fill(x, N, 99, -3, 3);
  st_fill(g, N, 98, -1, 1);
  const double bad[] = {0.0, -0.0, -1.0, -1e-300, NAN, INFINITY, -INFINITY, 1e4 * (1 + 1e-15), 1e5};
  FOR_EACH_IMPL(impl) {
    const double one = 1.0;
    CHECK_STATUS(ss_normalize(KT(), impl, x, N, &one, 1, y), SS_OK);
    st_poison(dx, N);
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
      float yy[N];
      st_poison(yy, N);
      CHECK_STATUS(ss_normalize(KT(), impl, x, N, &bad[k], 1, yy), SS_ERR_PARAM_RANGE);
      CHECK(st_untouched(yy, N), "%s T=%g: y written", ss_impl_name(impl), bad[k]);
      CHECK_STATUS(ss_normalize_vjp(KT(), impl, x, y, g, N, &bad[k], 1, dx), SS_ERR_PARAM_RANGE);
      CHECK(ss_params_bad_index(KT(), &bad[k], 1) == 0, "T=%g not flagged", bad[k]);
    }
    CHECK(st_untouched(dx, N), "%s: dx written", ss_impl_name(impl));
    const double ok[] = {1e4, 1e-300, 0.05, 20.0};
    for (size_t k = 0; k < 4; k++) {
      CHECK_STATUS(ss_normalize(KT(), impl, x, N, &ok[k], 1, y), SS_OK);
      double s = 0.0;
      for (size_t i = 0; i < N; i++) s += y[i];
      CHECK(fabs(s - 1.0) <= 1e-5, "%s T=%g: sum %.9g", ss_impl_name(impl), ok[k], s);
    }
  }
}

TEST(temperature_bad_inputs) {
  const double params[2] = {0.5, 0.5};
  st_normalizer_bad_inputs(KT(), params, 1);
}

/* Tiny T with logits of tiny magnitude is not one-hot: x - max ~ 1e-45 and
   T = 1e-40 give z ~ -1e-5 (1/T overflows float: the double-division path),
   T = 1e-38 takes the beta = 1/T path. Both match float64 within the bound. */
TEST(temperature_tiny_t_tiny_gaps) {
  const float x[] = {0.0f, -0x1p-149f, -0x1p-140f, 0x1p-145f, -0x1p-130f, -INFINITY, 0.0f};
  enum { N = sizeof x / sizeof x[0] };
  static const double ts[] = {1e-40, 1e-38, 1e-42};
  FOR_EACH_IMPL(impl) {
    for (size_t k = 0; k < 3; k++) {
      float y[N];
      double ref[N];
      ref_softmax(x, N, 1.0 / ts[k], ref);
      CHECK_STATUS(ss_normalize(KT(), impl, x, N, &ts[k], 1, y), SS_OK);
      for (size_t i = 0; i < N; i++) {
        const double tol = ref[i] < 1e-30 ? 1e-30 : TEMP_A * ref[i];
        CHECK(fabs(y[i] - ref[i]) <= tol, "%s T=%g i=%zu: y=%.9g ref=%.9g", ss_impl_name(impl),
              ts[k], i, y[i], ref[i]);
      }
      CHECK(y[1] > 0.01f, "%s T=%g: tiny gap became one-hot (%g)", ss_impl_name(impl), ts[k], y[1]);
    }
  }
}
