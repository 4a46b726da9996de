/*
 * ss_gelu / ss_gelu_backward (core/src/model/activation.c) against a
 * float64 model of torch's gelu(approximate='tanh'):
 *   y64 = x (1 + tanh(u)) / 2, u = sqrt(2/pi) (x + 0.044715 x^3), for x >= -3;
 *   y64 = x e^{2u} / (1 + e^{2u}) below (the same function without the
 *   cancellation of 1 + tanh(u) -> 0).
 * Bounds (activation.c): scalar u |y64|; SIMD (8 + 10|u|) 2^-24 |y64| +
 * 2^-122 for x < 0, 6 2^-24 |y64| + 2^-149 for x >= 0 (its tanh: 1 + tanh(u)
 * from the SIMD exp); dx = dy gelu'(x) against central differences of the
 * model (h = 1e-6 max(1, |x|): error below FD_ERR |dy| (1 + |x|)).
 */
#include "harness.h"
#include "model_testing.h"

#define GC 0.7978845608028654
#define GA 0.044715
#define FD_ERR 1e-9

static double u_of(double x) { return GC * (x + GA * x * x * x); }
static double gelu64(double x) {
  const double u = u_of(x);
  if (x >= -3.0) return 0.5 * x * (1.0 + tanh(u));
  const double e = exp(2.0 * u);
  return x * e / (1.0 + e);
}
static double gelu_of(const double *v, size_t one, const void *ctx) {
  (void)one, (void)ctx;
  return gelu64(v[0]);
}
/* |gelu'(x)|'s size: s + |x| s (1 - s) 2c (1 + 3a x^2) (the bound's factor) */
static double dsize(double x) {
  const double u = u_of(x), e = exp(-2.0 * fabs(u)), s = u >= 0 ? 1 / (1 + e) : e / (1 + e);
  return s + fabs(x) * e / ((1 + e) * (1 + e)) * 2 * GC * (1 + 3 * GA * x * x);
}

static double y_bound(ss_impl impl, double x, double y64) {
  if (impl == SS_IMPL_SCALAR) return MT_U * (1 + 1e-9) * fabs(y64) + 0x1p-149;
  if (x < 0) return (8 + 10 * fabs(u_of(x))) * MT_U * fabs(y64) + 0x1p-122;
  return 6 * MT_U * fabs(y64) + 0x1p-149;
}

/* A grid over [-12, 12], random values, and extremes. */
static size_t gelu_inputs(float *x, size_t cap) {
  size_t n = 0;
  for (int i = 0; i <= 24000 && n < cap; i++) x[n++] = (float)(-12.0 + i * 1e-3);
  static const float extremes[] = {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-40f, -1e-40f, 1e3f, -1e3f,
                                   1e20f, -1e20f, 3e38f, -3e38f, FLT_MAX, -FLT_MAX, 9.6f, -9.6f};
  for (size_t i = 0; i < sizeof extremes / sizeof extremes[0]; i++) x[n++] = extremes[i];
  ss_rng r = {5};
  while (n < cap) x[n++] = (float)(ss_rng_normal(&r) * 4.0);
  return n;
}

TEST(gelu_forward_matches_float64) {
  enum { N = 26003 }; /* not a multiple of 4: the tail */
  float *x = ss_test_alloc(N * 4), *y = ss_test_alloc(N * 4);
  gelu_inputs(x, N);
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_gelu(impl, x, N, y), SS_OK);
    for (size_t i = 0; i < N; i++) {
      const double r = gelu64(x[i]);
      CHECK(fabs(y[i] - r) <= y_bound(impl, x[i], r), "%s x=%.9g: y=%.9g ref %.12g (%.3g u)",
            ss_impl_name(impl), x[i], y[i], r, fabs(y[i] - r) / fabs(r) / MT_U);
    }
  }
}

/* The model's two forms agree where torch's tanh form is well conditioned
   in double (1 + tanh(u) >= 3e-5 for x >= -4: relative error < 1e-10). */
TEST(gelu_model_forms_agree) {
  for (double x = -4.0; x < 2.0; x += 0.01) {
    const double u = u_of(x), e = exp(2.0 * u);
    CHECK(fabs(0.5 * x * (1.0 + tanh(u)) - x * e / (1.0 + e)) <= 1e-10 * fabs(x * e / (1.0 + e)),
          "forms differ at x=%g", x);
  }
}

TEST(gelu_backward_matches_finite_differences) {
  enum { N = 26003 };
  float *x = ss_test_alloc(N * 4), *dy = ss_test_alloc(N * 4), *dx = ss_test_alloc(N * 4);
  gelu_inputs(x, N);
  st_fill(dy, N, 8, -2.0f, 2.0f);
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_gelu_backward(impl, x, dy, N, dx), SS_OK);
    for (size_t i = 0; i < N; i++) {
      double v = x[i];
      const double h = 1e-6 * fmax(1.0, fabs(v));
      const double fd = dy[i] * fd_central64(gelu_of, NULL, &v, 1, 0, h);
      const double tol = (impl == SS_IMPL_SCALAR
                              ? MT_U * fabs(fd)
                              : (12 + 10 * fabs(u_of(v))) * MT_U * fabs(dy[i]) * dsize(v) +
                                    0x1p-118 * fabs(dy[i])) +
                         FD_ERR * fabs(dy[i]) * (1 + fabs(v));
      CHECK(fabs(dx[i] - fd) <= tol, "%s x=%.9g dy=%g: dx=%.9g fd %.12g", ss_impl_name(impl), v,
            dy[i], dx[i], fd);
    }
  }
}

TEST(gelu_bad_inputs) {
  enum { N = 9 };
  float x[N], dy[N], y[N], dx[N];
  st_fill(x, N, 1, -3, 3);
  st_fill(dy, N, 2, -1, 1);
  st_poison(y, N);
  st_poison(dx, N);
  CHECK_STATUS(ss_gelu(SS_IMPL_SCALAR, NULL, N, y), SS_ERR_NULL);
  CHECK_STATUS(ss_gelu(SS_IMPL_SCALAR, x, N, NULL), SS_ERR_NULL);
  CHECK_STATUS(ss_gelu_backward(SS_IMPL_SCALAR, NULL, dy, N, dx), SS_ERR_NULL);
  CHECK_STATUS(ss_gelu_backward(SS_IMPL_SCALAR, x, NULL, N, dx), SS_ERR_NULL);
  CHECK_STATUS(ss_gelu_backward(SS_IMPL_SCALAR, x, dy, N, NULL), SS_ERR_NULL);
  CHECK_STATUS(ss_gelu(SS_IMPL_COUNT, x, N, y), SS_ERR_UNSUPPORTED);
  CHECK_STATUS(ss_gelu_backward(SS_IMPL_COUNT, x, dy, N, dx), SS_ERR_UNSUPPORTED);
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_gelu(impl, x, 0, y), SS_ERR_EMPTY);
    CHECK_STATUS(ss_gelu_backward(impl, x, dy, 0, dx), SS_ERR_EMPTY);
    CHECK_STATUS(ss_gelu(impl, x, SS_MAX_N + 1, y), SS_ERR_TOO_LARGE);
    CHECK_STATUS(ss_gelu_backward(impl, x, dy, SS_MAX_N + 1, dx), SS_ERR_TOO_LARGE);
    x[6] = NAN;
    CHECK_STATUS(ss_gelu(impl, x, N, y), SS_ERR_NAN);
    CHECK_STATUS(ss_gelu_backward(impl, x, dy, N, dx), SS_ERR_NAN);
    x[6] = INFINITY;
    CHECK_STATUS(ss_gelu(impl, x, N, y), SS_ERR_NONFINITE);
    x[6] = 0.5f;
    dy[2] = NAN;
    CHECK_STATUS(ss_gelu_backward(impl, x, dy, N, dx), SS_ERR_NAN);
    dy[2] = -INFINITY;
    CHECK_STATUS(ss_gelu_backward(impl, x, dy, N, dx), SS_ERR_NONFINITE);
    dy[2] = 0.5f;
    CHECK(st_untouched(y, N) && st_untouched(dx, N), "%s: an output was written", ss_impl_name(impl));
  }
}

/* dy gelu'(x) beyond FLT_MAX (gelu'(1) = 1.08) is SS_ERR_DOMAIN in both
   impls; FLT_MAX at x = 20 (gelu' = 1 exactly in float) is fine. */
TEST(gelu_backward_overflow_is_domain_error) {
  float x[5] = {0.1f, 1.0f, -2.0f, 3.0f, 20.0f}, dy[5] = {1, FLT_MAX, 1, 1, 1}, dx[5];
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_gelu_backward(impl, x, dy, 5, dx), SS_ERR_DOMAIN);
    CHECK_STATUS(ss_gelu_backward(impl, x + 4, dy + 1, 1, dx), SS_OK);
    CHECK(dx[0] == FLT_MAX, "%s: dx = %g", ss_impl_name(impl), dx[0]);
  }
}

/* Random magnitudes 1e-40 .. 1e38: SS_OK only with finite outputs, the
   same status in both impls. */
TEST(gelu_never_inf_with_ok) {
  enum { N = 7 };
  float x[N], dy[N], y[N], dx[N];
  ss_rng rng = {123};
  for (int t = 0; t < 400; t++) {
    const float sx = (float)pow(10.0, -40 + 78 * ss_rng_unif(&rng));
    const float sd = (float)pow(10.0, -40 + 78 * ss_rng_unif(&rng));
    st_fill(x, N, 10 + t, -sx, sx);
    st_fill(dy, N, 20 + t, -sd, sd);
    ss_status st[2] = {SS_OK, SS_OK};
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_gelu(impl, x, N, y), SS_OK);
      CHECK(mt_all_finite(y, N), "%s t=%d: non-finite y", ss_impl_name(impl), t);
      st[impl] = ss_gelu_backward(impl, x, dy, N, dx);
      if (st[impl] == SS_OK) CHECK(mt_all_finite(dx, N), "%s t=%d: non-finite dx", ss_impl_name(impl), t);
    }
    if (ss_impl_available(SS_IMPL_SIMD)) CHECK(st[0] == st[1], "t=%d: scalar %d simd %d", t, st[0], st[1]);
  }
}
