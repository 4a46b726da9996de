/*
 * softplus_l1: y_i = softplus(c x_i) / sum_j softplus(c x_j),
 * c = log(head_dim) log(n), n = number of unmasked entries.
 *
 * The float64 reference here is written differently from the kernel: it
 * forms the log-weights l_i = log softplus(z_i) (log log1p e^z, with the
 * asymptotic forms z - e^z/2 for z < -30 and log(z + e^-z) for z > 30) and
 * takes softmax(l), so nothing under- or overflows.
 *
 * Stated bound for outputs >= 1e-30: |y_i - y64_i| <= (SP_A + SP_B k_i) y64_i
 * with k_i the exponent that the float exp sees: c (M - x_i) when c M <= 0
 * (M = max x), else c |x_i| for x_i <= 0 and 0 for x_i > 0 (the linear part
 * dominates there). SIMD vs scalar: |a - b| <= (SP_A + SP_B k_i) a.
 * Measured: max err / bound 0.29 (n in 1..67, 255, 4097, 65539, d = 2, 64,
 * 65536, five logit regimes), SIMD vs scalar 0.30 of its bound.
 */
#include <float.h>
#include <string.h>

#include "forward_sweep.h"
#include "harness.h"
#include "softmax_testing.h"

#define SP_A 4e-6
#define SP_B 0x1p-22

static const ss_kernel_info *K(void) { return ss_kernel_find("softplus_l1", SS_FAMILY_NORMALIZER); }

/* log softplus(z) without overflow or underflow. */
static double log_softplus(double z) {
  if (z < -30.0) return z - 0.5 * exp(z);
  if (z > 30.0) return log(z + exp(-z));
  return log(log1p(exp(z)));
}

/* The float64 model: softmax of the log-weights. */
static void model_sp(const double *x, size_t n, double d, double *out) {
  size_t nu = 0;
  for (size_t i = 0; i < n; i++) nu += x[i] != -INFINITY;
  const double c = log(d) * log((double)nu);
  double m = -INFINITY, s = 0.0;
  for (size_t i = 0; i < n; i++) {
    out[i] = x[i] == -INFINITY ? -INFINITY : log_softplus(c * x[i]);
    m = out[i] > m ? out[i] : m;
  }
  for (size_t i = 0; i < n; i++) {
    out[i] = out[i] == -INFINITY ? 0.0 : exp(out[i] - m);
    s += out[i];
  }
  for (size_t i = 0; i < n; i++) out[i] /= s;
}

/* k_i of the stated bound, for every i (c and M computed once). */
static void kappas(const float *x, size_t n, double d, double *k) {
  const double c = log(d) * log((double)st_unmasked(x, n));
  float m = -INFINITY;
  for (size_t j = 0; j < n; j++) m = x[j] > m ? x[j] : m;
  for (size_t i = 0; i < n; i++) {
    if (x[i] == -INFINITY) k[i] = 0.0;
    else if (c * m <= 0.0) k[i] = c * ((double)m - x[i]);
    else k[i] = x[i] <= 0.0f ? c * fabs((double)x[i]) : 0.0;
  }
}

TEST(softplus_l1_descriptor) {
  const ss_kernel_info *k = K();
  CHECK(k && k->nparams == 1 && k->has_backward && k->output == SS_OUTPUT_PROBS &&
            strstr(k->paper, "Gao"),
        "descriptor");
  const ss_param_info *p = &k->params[0];
  CHECK(strcmp(p->name, "head_dim") == 0 && p->type == SS_PARAM_INT && p->min == 1.0 &&
            p->max == 65536.0 && p->def == 64.0 && p->ui_min == 2.0 && p->ui_max == 256.0,
        "param info");
}

/* Rows of every regime: moderate logits (cosines and beyond), all very
   negative (every softplus underflows in float: c M << 0), all huge
   (c x is no float), and both extremes in one row. */
static void fill_case(float *x, size_t n, int kind, uint64_t seed) {
  switch (kind) {
    case 0: st_fill(x, n, seed, -1, 1); break;      /* the paper's cosine range */
    case 1: st_fill(x, n, seed, -6, 6); break;
    case 2: st_fill(x, n, seed, -300, -100); break; /* c M <= 0, far below */
    case 3: st_fill(x, n, seed, 1e30f, 3e38f); break;
    default:
      st_fill(x, n, seed, -1, 1);
      x[0] = FLT_MAX;
      if (n > 1) x[n - 1] = -FLT_MAX;
      break;
  }
}

static const double SP_DIMS[] = {2.0, 64.0, 65536.0};

/* Case c: input kind c / 3 (one -Inf at 4 when n > 5), head_dim SP_DIMS[c % 3]. */
static void sp_input(float *x, size_t n, size_t c, fw_case *o) {
  const int kind = (int)(c / 3);
  fill_case(x, n, kind, 10 * n + (uint64_t)kind);
  if (n > 5) x[4] = -INFINITY;
  o->params[0] = SP_DIMS[c % 3];
  o->nparams = 1;
  snprintf(o->what, sizeof o->what, "kind %d d=%g", kind, SP_DIMS[c % 3]);
}

/* The log-weights reference, within (SP_A + SP_B k_i) y64_i. */
static void sp_model(const float *x, size_t n, const fw_case *c, double *ref, double *bound) {
  st_ref64(model_sp, c->params[0], x, n, ref);
  kappas(x, n, c->params[0], bound);
  for (size_t i = 0; i < n; i++) bound[i] = (SP_A + SP_B * bound[i]) * ref[i];
}

TEST(softplus_l1_matches_float64_reference) {
  static const size_t big[] = {255, 4097, 65539};
  const fw_sweep row = {.kernel = "softplus_l1", .big = big, .nbig = 3, .ncases = 5 * 3,
                        .input = sp_input, .model = sp_model};
  double worst;
  CHECK(fw_run(&row, &worst), "see above");
  CHECK(worst <= 1.0, "worst ratio %.3g", worst);
}

/* Non-negative, sums to 1 within 1e-5, never NaN, in every regime. */
TEST(softplus_l1_is_a_distribution) {
  float x[300], y[300];
  for (int kind = 0; kind < 5; kind++) {
    for (size_t n = 1; n <= 300; n += 13) {
      fill_case(x, n, kind, 99 * n + (uint64_t)kind);
      const double d = 64.0;
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_normalize(K(), impl, x, n, &d, 1, y), SS_OK);
        double s = 0.0;
        for (size_t i = 0; i < n; i++) {
          CHECK(y[i] >= 0.0f && y[i] <= 1.0f, "%s kind %d n=%zu: y[%zu] = %g", ss_impl_name(impl),
                kind, n, i, y[i]);
          s += y[i];
        }
        CHECK(fabs(s - 1.0) <= 1e-5, "%s kind %d n=%zu: sum %.9g", ss_impl_name(impl), kind, n, s);
      }
    }
  }
}

TEST(softplus_l1_simd_vs_scalar) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  float x[300], a[300], b[300];
  double worst = 0.0, kap[300];
  for (int kind = 0; kind < 5; kind++) {
    for (size_t n = 1; n <= 300; n += (n < 67 ? 1 : 31)) {
      fill_case(x, n, kind, 7 * n + (uint64_t)kind);
      const double d = kind == 1 ? 8.0 : 64.0;
      kappas(x, n, d, kap);
      CHECK_STATUS(ss_normalize(K(), SS_IMPL_SCALAR, x, n, &d, 1, a), SS_OK);
      CHECK_STATUS(ss_normalize(K(), SS_IMPL_SIMD, x, n, &d, 1, b), SS_OK);
      for (size_t i = 0; i < n; i++) {
        if (a[i] < 1e-30f) {
          CHECK(fabs(a[i] - b[i]) < 1e-30, "kind %d n=%zu i=%zu: %g vs %g", kind, n, i, a[i], b[i]);
          continue;
        }
        worst = fmax(worst, fabs(a[i] - b[i]) / ((SP_A + SP_B * kap[i]) * a[i]));
      }
    }
  }
  CHECK(worst <= 1.0, "worst ratio %.3g", worst);
}

/* n = 1 gives 1; head_dim = 1 (log 1 = 0) gives 1/n on every unmasked
   entry, exactly. */
TEST(softplus_l1_zero_scale) {
  float x[10], y[10];
  st_fill(x, 10, 3, -5, 5);
  x[2] = x[7] = -INFINITY;
  const double one = 1.0, d = 64.0;
  const float single[1] = {7.5f};
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(K(), impl, single, 1, &d, 1, y), SS_OK);
    CHECK(y[0] == 1.0f, "%s n=1: %g", ss_impl_name(impl), y[0]);
    CHECK_STATUS(ss_normalize(K(), impl, x, 10, &one, 1, y), SS_OK);
    for (int i = 0; i < 10; i++)
      CHECK(y[i] == (i == 2 || i == 7 ? 0.0f : 0.125f), "%s d=1: y[%d]=%g", ss_impl_name(impl), i, y[i]);
  }
}

/* VJP vs central differences of the float64 model. dx_j = y_j q_j (g_j -
   <g, y>), q_j = c sigmoid(z_j) / softplus(z_j), is formed from the float y,
   so the tolerance is 4x the output's stated relative error (with the row's
   largest k) on y64_j q_j (|g_j| + sum |g|), plus 1e-9 sum |g|. */
static const double FD_DIMS[] = {2.0, 64.0, 1024.0};

/* Case c: input kind c / 3 (kind 2 scaled to -6..-2, where c M < 0), x[3]
   masked when n > 4, g in +-1, head_dim FD_DIMS[c % 3]; the step shrinks
   as the scale c = log(d) log(n) grows. */
static void sp_fd_input(float *x, float *g, size_t n, size_t c, fd_case *o) {
  const int kind = (int)(c / 3);
  fill_case(x, n, kind, 300 + n + (uint64_t)kind);
  if (kind == 2)
    for (size_t i = 0; i < n; i++) x[i] *= 0.02f;
  st_fill(g, n, 400 + n, -1, 1);
  if (n > 4) x[3] = -INFINITY;
  const double d = FD_DIMS[c % 3];
  o->params[0] = o->model_param = d;
  o->nparams = 1;
  o->h = 1e-5 / fmax(log(d) * log((double)st_unmasked(x, n)), 1.0);
  snprintf(o->what, sizeof o->what, "kind %d d=%g", kind, d);
}

/* 4 (SP_A + SP_B max k) p_j q_j (|g_j| + G) + 1e-9 G, q_j = c s'(z_j) / s(z_j). */
static void sp_fd_tol(const float *x, const float *g, size_t n, const fd_case *fc, const double *p,
                      double G, double *tol) {
  const double d = fc->model_param, c = log(d) * log((double)st_unmasked(x, n));
  double kap[FD_MAX_N], kmax = 0.0;
  kappas(x, n, d, kap);
  for (size_t j = 0; j < n; j++) kmax = fmax(kmax, kap[j]);
  const double rel = 4.0 * (SP_A + SP_B * kmax);
  for (size_t j = 0; j < n; j++) {
    double q = 0.0;
    if (x[j] != -INFINITY) {
      const double z = c * x[j];
      q = c / (1.0 + exp(-z)) / exp(log_softplus(z));
    }
    tol[j] = rel * p[j] * q * (fabs(g[j]) + G) + 1e-9 * G;
  }
}

TEST(softplus_l1_vjp_matches_finite_differences) {
  static const size_t ns[] = {1, 2, 5, 16, 17, 60};
  const fd_sweep row = {.kernel = "softplus_l1", .ns = ns, .nns = 6, .ncases = 3 * 3,
                        .input = sp_fd_input, .model64 = model_sp, .tol = sp_fd_tol};
  CHECK(fd_run(&row), "see above");
}

/* The VJP stays finite on rows where c x is no float. */
TEST(softplus_l1_vjp_extreme_rows) {
  float x[20], y[20], g[20], dx[20];
  st_fill(g, 20, 5, -1, 1);
  const double d = 64.0;
  for (int kind = 2; kind < 5; kind++) {
    fill_case(x, 20, kind, 900 + (uint64_t)kind);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_normalize(K(), impl, x, 20, &d, 1, y), SS_OK);
      CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, 20, &d, 1, dx), SS_OK);
      for (int i = 0; i < 20; i++)
        CHECK(isfinite(dx[i]), "%s kind %d: dx[%d] = %g", ss_impl_name(impl), kind, i, dx[i]);
    }
  }
}
