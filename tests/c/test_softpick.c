/*
 * softpick: y_i = relu(e^{x_i} - 1) / sum_j |e^{x_j} - 1| (unmasked j),
 * y = 0 when max x <= 0.
 *
 * Stated bounds: rel err <= SP_REL vs the float64 reference below for
 * outputs >= 1e-30 (normal logits; measured 6e-8 scalar, 3.3e-7 SIMD);
 * SIMD vs scalar <= 8 ulp (measured 5).
 */
#include <string.h>

#include "forward_sweep.h"
#include "harness.h"
#include "reference.h"
#include "softmax_testing.h"
#include "variants_testing.h"

#define SP_REL 1e-6

static const ss_kernel_info *K(void) { return ss_kernel_find("softpick", SS_FAMILY_NORMALIZER); }

/* Float64 softpick written from the definition: expm1 directly while it
   cannot overflow; beyond, the authors' shifted form e^{x-m} - e^{-m}
   (its cancellation only hits entries whose output is ~e^{-m} ~ 0). */
static void softpick64(const double *x, size_t n, double unused, double *out) {
  (void)unused;
  double m = -INFINITY, den = 0.0;
  for (size_t i = 0; i < n; i++) m = x[i] > m ? x[i] : m;
  for (size_t i = 0; i < n; i++) {
    if (x[i] == -INFINITY) {
      out[i] = 0.0;
      continue;
    }
    out[i] = m <= 700.0 ? expm1(x[i]) : exp(x[i] - m) - exp(-m);
    den += fabs(out[i]);
  }
  for (size_t i = 0; i < n; i++) out[i] = out[i] > 0.0 ? out[i] / den : 0.0;
}

TEST(softpick_descriptor) {
  const ss_kernel_info *k = K();
  CHECK(k && k->nparams == 0 && k->has_backward && k->output == SS_OUTPUT_WEIGHTS &&
            strstr(k->paper, "Zuhri") && strstr(k->paper, "2025"),
        "descriptor");
}

/* x = (ln 2, ln 3, -ln 2, 0): e^x - 1 = (1, 2, -1/2, 0), so y = (2/7, 4/7, 0, 0)
   (the logits are float roundings of the logs: 1e-6 relative slack). */
TEST(softpick_definition) {
  const float x[4] = {(float)log(2.0), (float)log(3.0), (float)-log(2.0), 0.0f};
  FOR_EACH_IMPL(impl) {
    float y[4];
    CHECK_STATUS(ss_normalize(K(), impl, x, 4, NULL, 0, y), SS_OK);
    CHECK(fabs(y[0] - 2.0 / 7) <= 1e-6 && fabs(y[1] - 4.0 / 7) <= 1e-6 && y[2] == 0.0f &&
              y[3] == 0.0f,
          "%s: [%.9g %.9g %g %g]", ss_impl_name(impl), y[0], y[1], y[2], y[3]);
  }
}

/* Rel err <= SP_REL vs float64 over logit scales 1e-20 (expm1's regime,
   where e^x - 1 would cancel) to 1e3 (where e^x overflows even double). */
TEST(softpick_matches_float64_reference) {
  static const size_t big[] = {255, 4097, 65539};
  static const float scales[] = {1e-20f, 1e-3f, 1.0f, 5.0f, 30.0f, 80.0f, 1e3f};
  const fw_sweep row = {.kernel = "softpick", .big = big, .nbig = 3, .ncases = 7, .scales = scales,
                        .seed_step = 1000, .model64 = softpick64, .rel = SP_REL};
  double worst;
  CHECK(fw_run(&row, &worst), "see above");
  CHECK(worst <= 1.0, "worst %.3g of the bound", worst);
}

/* Exact zeros for x <= 0; sum y = P / (P + N) <= 1 with P, N the positive
   and negative parts of the denominator, and = 1 (within 1e-5) when no
   entry is negative. */
TEST(softpick_zeros_and_sum) {
  enum { N = 203 };
  float x[N], y[N];
  FOR_EACH_IMPL(impl) {
    st_fill(x, N, 21, -4, 4);
    x[7] = 0.0f;
    x[8] = -0.0f;
    CHECK_STATUS(ss_normalize(K(), impl, x, N, NULL, 0, y), SS_OK);
    double s = 0.0;
    for (size_t i = 0; i < N; i++) {
      CHECK(x[i] > 0.0f ? y[i] > 0.0f : y[i] == 0.0f && !signbit(y[i]), "%s: x=%g y=%g",
            ss_impl_name(impl), x[i], y[i]);
      s += y[i];
    }
    CHECK(s < 1.0 - 1e-3, "%s: sum %.9g with negative entries", ss_impl_name(impl), s);
    for (size_t i = 0; i < N; i++) x[i] = fabsf(x[i]);
    CHECK_STATUS(ss_normalize(K(), impl, x, N, NULL, 0, y), SS_OK);
    s = 0.0;
    for (size_t i = 0; i < N; i++) s += y[i];
    CHECK(fabs(s - 1.0) <= 1e-5, "%s: sum %.9g without negative entries", ss_impl_name(impl), s);
  }
}

/* max x <= 0: y = 0, dx = 0 -- including the all-zero row, whose
   denominator is 0 (0/0 defined as 0). */
TEST(softpick_nonpositive_rows_are_zero) {
  enum { N = 21 };
  float x[N], y[N], g[N], dx[N];
  st_fill(g, N, 5, -1, 1);
  for (int c = 0; c < 3; c++) {
    if (c == 0) st_fill(x, N, 4, -5, 0);
    else
      for (size_t i = 0; i < N; i++) x[i] = c == 1 ? 0.0f : (i % 3 ? -0.0f : -INFINITY);
    FOR_EACH_IMPL(impl) {
      st_poison(y, N);
      CHECK_STATUS(ss_normalize(K(), impl, x, N, NULL, 0, y), SS_OK);
      CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, N, NULL, 0, dx), SS_OK);
      for (size_t i = 0; i < N; i++)
        CHECK(y[i] == 0.0f && dx[i] == 0.0f, "%s case %d: y[%zu]=%g dx=%g", ss_impl_name(impl), c,
              i, y[i], dx[i]);
    }
  }
}

/* No overflow at any logit: e^{3e38} is handled by the shift. */
TEST(softpick_extreme_logits) {
  const float x[5] = {3e38f, 100.0f, 0.0f, -3e38f, 3e38f};
  FOR_EACH_IMPL(impl) {
    float y[5];
    CHECK_STATUS(ss_normalize(K(), impl, x, 5, NULL, 0, y), SS_OK);
    CHECK(y[0] == 0.5f && y[4] == 0.5f && y[1] == 0.0f && y[2] == 0.0f && y[3] == 0.0f,
          "%s: [%g %g %g %g %g]", ss_impl_name(impl), y[0], y[1], y[2], y[3], y[4]);
  }
}

/* Rows whose max is below 2^-100 take the scalar path in SIMD too: for
   x ~ 1e-35, e^x - 1 = x to float precision, so y = relu(x) / sum |x|. */
TEST(softpick_tiny_logits) {
  const float x[5] = {1e-35f, 3e-35f, -1e-35f, 0.0f, -INFINITY};
  FOR_EACH_IMPL(impl) {
    float y[5];
    CHECK_STATUS(ss_normalize(K(), impl, x, 5, NULL, 0, y), SS_OK);
    CHECK(ss_ulp_diff(y[0], 0.2f) <= 2 && ss_ulp_diff(y[1], 0.6f) <= 2 && y[2] == 0.0f &&
              y[3] == 0.0f && y[4] == 0.0f,
          "%s: [%.9g %.9g %g %g %g]", ss_impl_name(impl), y[0], y[1], y[2], y[3], y[4]);
  }
}

TEST(softpick_simd_vs_scalar) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  static const float scales[] = {1e-3f, 1.0f, 10.0f, 60.0f};
  for (size_t n = 1; n <= 67; n++) {
    float x[67];
    for (size_t s = 0; s < 4; s++) {
      st_fill(x, n, 40 * s + n, -scales[s], scales[s]);
      const uint32_t u = vt_simd_vs_scalar(K(), NULL, 0, x, n, 1e-30f);
      CHECK(u <= 8, "n=%zu scale=%g: %u ulp", n, scales[s], u);
    }
  }
  float *x = ss_test_alloc(70001 * 4);
  st_fill(x, 70001, 41, -20, 20);
  const uint32_t u = vt_simd_vs_scalar(K(), NULL, 0, x, 70001, 1e-30f);
  CHECK(u <= 8, "n=70001: %u ulp", u);
}

/* VJP vs central differences of the float64 model: dx_j = w_j ([x_j > 0] g_j
   - sign(x_j) <g, y>), w_j = e^{x_j} / sum |e^x - 1|. Logits kept >= 1e-2
   away from the kink at 0. |dx - fd| <= 4 SP_REL W_j (|g_j| + G) + 1e-9 G,
   W_j = e^{x_j} / den in double. */
static const float FD_SCALES[] = {0.5f, 3.0f, 20.0f};

/* x in +-FD_SCALES[c], x[0] > 0 (one positive entry), every |x| >= 1e-2. */
static void pick_fd_input(float *x, float *g, size_t n, size_t c, fd_case *o) {
  st_fill(x, n, 50 + n + c, -FD_SCALES[c], FD_SCALES[c]);
  x[0] = fabsf(x[0]) + 0.1f;
  for (size_t i = 0; i < n; i++)
    if (fabsf(x[i]) < 1e-2f) x[i] = 0.05f;
  st_fill(g, n, 60 + n, -2.0f, 2.0f);
  snprintf(o->what, sizeof o->what, "scale %g", FD_SCALES[c]);
}

static void pick_fd_tol(const float *x, const float *g, size_t n, const fd_case *c,
                        const double *p, double G, double *tol) {
  (void)c, (void)p;
  double den = 0.0;
  for (size_t i = 0; i < n; i++) den += fabs(expm1((double)x[i]));
  for (size_t j = 0; j < n; j++) tol[j] = 4 * SP_REL * exp((double)x[j]) / den * (fabs(g[j]) + G) + 1e-9 * G;
}

TEST(softpick_vjp_matches_finite_differences) {
  static const size_t ns[] = {1, 2, 5, 16, 17, 40};
  const fd_sweep row = {.kernel = "softpick", .ns = ns, .nns = sizeof ns / sizeof ns[0],
                        .ncases = 3,
                        .input = pick_fd_input, .model64 = softpick64, .tol = pick_fd_tol};
  CHECK(fd_run(&row), "see above");
}

/* -Inf entries are left out of the denominator too: exactly 0 out and the
   rest as on the compacted row (scalar: the same double sum, bitwise). */
TEST(softpick_masking) {
  static const size_t ns[] = {2, 7, 16, 37, 64, 1000};
  char why[160];
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4);
    vt_fill_masked(x, n, 70 + n, -6, 6, 0.4);
    x[n - 1] = 2.5f; /* a positive entry: outputs not all 0 */
    FOR_EACH_IMPL(impl) {
      const uint32_t ulps = impl == SS_IMPL_SCALAR ? 0 : 8;
      CHECK(vt_padding_holds(K(), impl, NULL, 0, x, n, ulps, 1e-30f, why, sizeof why), "%s n=%zu: %s",
            ss_impl_name(impl), n, why);
    }
  }
}

TEST(softpick_n1) {
  const float xs[6] = {-1.0f, 0.0f, 2.0f, 0.3f, 7.0f, 1e-20f};
  FOR_EACH_IMPL(impl) {
    for (int c = 0; c < 6; c++) {
      float y[1];
      CHECK_STATUS(ss_normalize(K(), impl, &xs[c], 1, NULL, 0, y), SS_OK);
      CHECK(y[0] == (c >= 2 ? 1.0f : 0.0f), "%s: n=1 x=%g gives %g", ss_impl_name(impl), xs[c], y[0]);
    }
  }
}
