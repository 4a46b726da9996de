/*
 * ss_rmsnorm / ss_layernorm and their backward (core/src/model/rmsnorm.c,
 * layernorm.c) against float64 models.
 *
 * Bounds, from the files (u = 2^-24, xhat and inv of the float64 model):
 *   scalar reference: each output rounded once from double, |v - v64| <=
 *     u |v64| (+ 2^-149);
 *   SIMD RMSNorm:   |y - y64| <= 4u |y64|;  |dx - dx64| <= 8u inv (|g dy| +
 *     |xhat| mean|g dy xhat|);  |dgain - dg64| <= 4u sum |dy xhat|;
 *   SIMD LayerNorm: |y - y64| <= 3u (|xhat g| + |b|);  |dx - dx64| <= 8u inv
 *     (|g dy| + mean|g dy| + |xhat| mean|g dy xhat|);  |dgain - dg64| <=
 *     2u sum |dy xhat|;  |dbias - db64| <= u |db64|.
 * Backward against central differences of the float64 loss sum dy f(x, g, b)
 * (h = 1e-5; truncation ~h^2 and rounding ~2^-52 S / h, S the loss's sum of
 * |terms|, both below FD_REL S).
 */
#include <string.h>

#include "harness.h"
#include "model_testing.h"

typedef struct norm_shape {
  size_t rows, d;
} norm_shape;
static const norm_shape SHAPES[] = {{1, 1}, {1, 5}, {3, 4}, {4, 7}, {2, 16}, {5, 33}, {3, 130}};
#define NSHAPES (sizeof SHAPES / sizeof SHAPES[0])
static const double EPSS[] = {1e-5, 0.0, 1.0};
#define FD_H 1e-5
#define FD_REL 1e-9

typedef struct norm_ctx {
  size_t rows, d;
  double eps;
  bool layer; /* LayerNorm (else RMSNorm) */
  const float *dy;
} norm_ctx;

/* The float64 model of one row: y, and xhat, inv. */
static void row64(const norm_ctx *c, const double *x, const double *g, const double *b, double *y,
                  double *xhat, double *inv) {
  const size_t d = c->d;
  double mu = 0.0, sq = 0.0;
  if (c->layer) {
    for (size_t j = 0; j < d; j++) mu += x[j];
    mu /= (double)d;
  }
  for (size_t j = 0; j < d; j++) sq += (x[j] - mu) * (x[j] - mu);
  *inv = 1.0 / sqrt(sq / (double)d + c->eps);
  for (size_t j = 0; j < d; j++) {
    xhat[j] = (x[j] - mu) * *inv;
    y[j] = xhat[j] * g[j] + (c->layer && b ? b[j] : 0.0);
  }
}

/* sum dy f(v) with v = [x (rows d), g (d), b (d, LayerNorm)]. */
static double norm_loss(const double *v, size_t nv, const void *ctx) {
  (void)nv;
  const norm_ctx *c = ctx;
  const double *g = v + c->rows * c->d, *b = g + c->d;
  double y[200], xh[200], inv, L = 0.0;
  for (size_t r = 0; r < c->rows; r++) {
    row64(c, v + r * c->d, g, c->layer ? b : NULL, y, xh, &inv);
    for (size_t j = 0; j < c->d; j++) L += c->dy[r * c->d + j] * y[j];
  }
  return L;
}

static ss_status run_fwd(const norm_ctx *c, ss_impl impl, const float *x, const float *g,
                         const float *b, float *y) {
  return c->layer ? ss_layernorm(impl, x, c->rows, c->d, g, b, c->eps, y)
                  : ss_rmsnorm(impl, x, c->rows, c->d, g, c->eps, y);
}
static ss_status run_bwd(const norm_ctx *c, ss_impl impl, const float *x, const float *g,
                         const float *dy, float *dx, float *dg, float *db) {
  return c->layer ? ss_layernorm_backward(impl, x, c->rows, c->d, g, c->eps, dy, dx, dg, db)
                  : ss_rmsnorm_backward(impl, x, c->rows, c->d, g, c->eps, dy, dx, dg);
}

/* (CHECK leaves this function; the failure is recorded for the test) */
static void forward_case(bool layer) {
  for (size_t s = 0; s < NSHAPES; s++)
    for (size_t e = 0; e < 3; e++) {
      const size_t R = SHAPES[s].rows, d = SHAPES[s].d;
      if (layer && d == 1 && EPSS[e] == 0.0) continue; /* variance 0: norm_domain_errors */
      norm_ctx c = {R, d, EPSS[e], layer, NULL};
      float *x = ss_test_alloc(R * d * 4), *g = ss_test_alloc(d * 4), *b = ss_test_alloc(d * 4),
            *y = ss_test_alloc(R * d * 4);
      st_fill(x, R * d, 10 + s + 7 * e, -3.0f, 3.0f);
      if (layer) /* rows off zero mean: the centering matters */
        for (size_t i = 0; i < R * d; i++) x[i] += 5.0f;
      st_fill(g, d, 20 + s, -2.0f, 2.0f);
      st_fill(b, d, 30 + s, -1.0f, 1.0f);
      double xd[200], gd[200], bd[200], y64[200], xh[200], inv;
      mt_widen(g, d, gd);
      mt_widen(b, d, bd);
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(run_fwd(&c, impl, x, g, b, y), SS_OK);
        for (size_t r = 0; r < R; r++) {
          mt_widen(x + r * d, d, xd);
          row64(&c, xd, gd, bd, y64, xh, &inv);
          for (size_t j = 0; j < d; j++) {
            double tol;
            if (impl == SS_IMPL_SCALAR) tol = MT_U * fabs(y64[j]) + 0x1p-149;
            else if (layer) tol = 3 * MT_U * (fabs(xh[j] * gd[j]) + fabs(bd[j])) + 0x1p-149;
            else tol = 4 * MT_U * fabs(y64[j]) + 0x1p-149 * (1 + fabs(gd[j]));
            CHECK(fabs(y[r * d + j] - y64[j]) <= tol, "%s %s %zux%zu eps=%g y[%zu,%zu]=%.9g ref %.12g",
                  layer ? "layernorm" : "rmsnorm", ss_impl_name(impl), R, d, c.eps, r, j,
                  y[r * d + j], y64[j]);
          }
        }
      }
    }
}

TEST(rmsnorm_forward_matches_float64) { forward_case(false); }
TEST(layernorm_forward_matches_float64) { forward_case(true); }

static void backward_case(bool layer) {
  for (size_t s = 0; s < NSHAPES; s++)
    for (size_t e = 0; e < 3; e++) {
      const size_t R = SHAPES[s].rows, d = SHAPES[s].d, nv = R * d + 2 * d;
      if (layer && d == 1 && EPSS[e] == 0.0) continue; /* variance 0 */
      float *x = ss_test_alloc(R * d * 4), *g = ss_test_alloc(d * 4), *b = ss_test_alloc(d * 4),
            *dy = ss_test_alloc(R * d * 4), *dx = ss_test_alloc(R * d * 4),
            *dg = ss_test_alloc(d * 4), *db = ss_test_alloc(d * 4);
      st_fill(x, R * d, 40 + s + 7 * e, -3.0f, 3.0f);
      st_fill(g, d, 50 + s, -2.0f, 2.0f);
      st_fill(b, d, 60 + s, -1.0f, 1.0f);
      st_fill(dy, R * d, 70 + s, -1.0f, 1.0f);
      norm_ctx c = {R, d, EPSS[e], layer, dy};
      double *v = ss_test_alloc(nv * 8);
      mt_widen(x, R * d, v);
      mt_widen(g, d, v + R * d);
      mt_widen(b, d, v + R * d + d);
      /* S: the loss's sum of |terms|; per-row model values for the bounds */
      double y64[200], xh[200], inv, S = 0.0;
      double *invs = ss_test_alloc(R * 8), *xhs = ss_test_alloc(R * d * 8);
      for (size_t r = 0; r < R; r++) {
        row64(&c, v + r * d, v + R * d, v + R * d + d, y64, xh, &inv);
        invs[r] = inv;
        for (size_t j = 0; j < d; j++) {
          xhs[r * d + j] = xh[j];
          S += fabs(dy[r * d + j]) * (fabs(xh[j] * g[j]) + (layer ? fabs(b[j]) : 0.0));
        }
      }
      const double fd_tol = FD_REL * (S + 1.0);
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(run_bwd(&c, impl, x, g, dy, dx, dg, db), SS_OK);
        const bool simd = impl == SS_IMPL_SIMD;
        for (size_t r = 0; r < R; r++) {
          double mgd = 0.0, mgdx = 0.0; /* mean |g dy|, mean |g dy xhat| */
          for (size_t k = 0; k < d; k++) {
            mgd += fabs((double)g[k] * dy[r * d + k]) / (double)d;
            mgdx += fabs((double)g[k] * dy[r * d + k] * xhs[r * d + k]) / (double)d;
          }
          for (size_t j = 0; j < d; j++) {
            const double fd = fd_central64(norm_loss, &c, v, nv, r * d + j, FD_H);
            const double gdj = fabs((double)g[j] * dy[r * d + j]);
            const double tol = (simd ? 8 * MT_U * invs[r] *
                                           (gdj + (layer ? mgd : 0.0) + fabs(xhs[r * d + j]) * mgdx)
                                     : MT_U * fabs(fd)) + fd_tol;
            CHECK(fabs(dx[r * d + j] - fd) <= tol, "%s %s %zux%zu eps=%g dx[%zu,%zu]=%.9g fd %.12g tol %.3g",
                  layer ? "layernorm" : "rmsnorm", ss_impl_name(impl), R, d, c.eps, r, j,
                  dx[r * d + j], fd, tol);
          }
        }
        for (size_t j = 0; j < d; j++) {
          double sg = 0.0, sb = 0.0;
          for (size_t r = 0; r < R; r++) sg += fabs(dy[r * d + j] * xhs[r * d + j]), sb += fabs(dy[r * d + j]);
          const double fdg = fd_central64(norm_loss, &c, v, nv, R * d + j, FD_H);
          const double tg = (simd ? (layer ? 2 : 4) * MT_U * sg : MT_U * fabs(fdg)) + fd_tol;
          CHECK(fabs(dg[j] - fdg) <= tg, "%s %s dgain[%zu]=%.9g fd %.12g", layer ? "layernorm" : "rmsnorm",
                ss_impl_name(impl), j, dg[j], fdg);
          if (layer) {
            const double fdb = fd_central64(norm_loss, &c, v, nv, R * d + d + j, FD_H);
            CHECK(fabs(db[j] - fdb) <= MT_U * fabs(fdb) + fd_tol, "%s dbias[%zu]=%.9g fd %.12g",
                  ss_impl_name(impl), j, db[j], fdb);
          }
        }
      }
    }
}

TEST(rmsnorm_backward_matches_finite_differences) { backward_case(false); }
TEST(layernorm_backward_matches_finite_differences) { backward_case(true); }

/* dgain / dbias may be skipped (NULL) without changing dx. */
TEST(norm_backward_optional_outputs) {
  enum { R = 3, D = 9 };
  float x[R * D], g[D], dy[R * D], dx[R * D], dx2[R * D], dg[D];
  st_fill(x, R * D, 1, -2, 2);
  st_fill(g, D, 2, -2, 2);
  st_fill(dy, R * D, 3, -1, 1);
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_rmsnorm_backward(impl, x, R, D, g, 1e-5, dy, dx, dg), SS_OK);
    CHECK_STATUS(ss_rmsnorm_backward(impl, x, R, D, g, 1e-5, dy, dx2, NULL), SS_OK);
    CHECK(memcmp(dx, dx2, sizeof dx) == 0, "rmsnorm %s: dx depends on dgain", ss_impl_name(impl));
    CHECK_STATUS(ss_layernorm_backward(impl, x, R, D, g, 1e-5, dy, dx, dg, NULL), SS_OK);
    CHECK_STATUS(ss_layernorm_backward(impl, x, R, D, g, 1e-5, dy, dx2, NULL, NULL), SS_OK);
    CHECK(memcmp(dx, dx2, sizeof dx) == 0, "layernorm %s: dx depends on dgain", ss_impl_name(impl));
  }
}

/* eps = 0 and rows of 1e-30: inv ~ 1e30 is beyond the SIMD path's float
   range, which hands the call to the scalar reference; the result is still
   the float64 one. */
TEST(norm_tiny_rows_without_eps) {
  enum { R = 2, D = 6 };
  float x[R * D], g[D], dy[R * D], y[R * D], dx[R * D], dg[D];
  st_fill(x, R * D, 5, -1, 1);
  for (size_t i = 0; i < R * D; i++) x[i] *= 1e-30f;
  st_fill(g, D, 6, -2, 2);
  st_fill(dy, R * D, 7, -1, 1);
  for (int layer = 0; layer < 2; layer++) {
    norm_ctx c = {R, D, 0.0, layer, dy};
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(run_fwd(&c, impl, x, g, NULL, y), SS_OK);
      CHECK_STATUS(run_bwd(&c, impl, x, g, dy, dx, dg, NULL), SS_OK);
      for (size_t r = 0; r < R; r++) {
        double xd[D], gd[D], y64[D], xh[D], inv;
        mt_widen(x + r * D, D, xd);
        mt_widen(g, D, gd);
        row64(&c, xd, gd, NULL, y64, xh, &inv);
        for (size_t j = 0; j < D; j++)
          CHECK(fabs(y[r * D + j] - y64[j]) <= 4 * MT_U * fabs(y64[j]) + 4 * MT_U * fabs(gd[j]),
                "%s %s: y[%zu,%zu]=%.9g ref %.12g", layer ? "layernorm" : "rmsnorm",
                ss_impl_name(impl), r, j, y[r * D + j], y64[j]);
      }
      CHECK(mt_all_finite(dx, R * D) && mt_all_finite(dg, D), "non-finite gradient");
    }
  }
}

TEST(norm_bad_inputs) {
  enum { R = 3, D = 5 };
  float x[R * D], g[D], b[D], dy[R * D], y[R * D], dx[R * D], dg[D];
  st_fill(x, R * D, 1, -1, 1);
  st_fill(g, D, 2, -1, 1);
  st_fill(b, D, 3, -1, 1);
  st_fill(dy, R * D, 4, -1, 1);
  st_poison(y, R * D);
  st_poison(dx, R * D);
  CHECK_STATUS(ss_rmsnorm(SS_IMPL_SCALAR, NULL, R, D, g, 1e-5, y), SS_ERR_NULL);
  CHECK_STATUS(ss_rmsnorm(SS_IMPL_SCALAR, x, R, D, NULL, 1e-5, y), SS_ERR_NULL);
  CHECK_STATUS(ss_rmsnorm(SS_IMPL_SCALAR, x, R, D, g, 1e-5, NULL), SS_ERR_NULL);
  CHECK_STATUS(ss_rmsnorm_backward(SS_IMPL_SCALAR, x, R, D, g, 1e-5, NULL, dx, dg), SS_ERR_NULL);
  CHECK_STATUS(ss_rmsnorm_backward(SS_IMPL_SCALAR, x, R, D, g, 1e-5, dy, NULL, dg), SS_ERR_NULL);
  CHECK_STATUS(ss_layernorm(SS_IMPL_SCALAR, x, R, D, NULL, b, 1e-5, y), SS_ERR_NULL);
  CHECK_STATUS(ss_layernorm_backward(SS_IMPL_SCALAR, NULL, R, D, g, 1e-5, dy, dx, dg, NULL), SS_ERR_NULL);
  CHECK_STATUS(ss_rmsnorm(SS_IMPL_COUNT, x, R, D, g, 1e-5, y), SS_ERR_UNSUPPORTED);
  CHECK_STATUS(ss_layernorm_backward(SS_IMPL_COUNT, x, R, D, g, 1e-5, dy, dx, dg, NULL), SS_ERR_UNSUPPORTED);
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_rmsnorm(impl, x, 0, D, g, 1e-5, y), SS_ERR_EMPTY);
    CHECK_STATUS(ss_layernorm(impl, x, R, 0, g, b, 1e-5, y), SS_ERR_EMPTY);
    CHECK_STATUS(ss_rmsnorm(impl, x, R, SS_NORM_MAX_D + 1, g, 1e-5, y), SS_ERR_TOO_LARGE);
    CHECK_STATUS(ss_layernorm_backward(impl, x, R, SS_NORM_MAX_D + 1, g, 1e-5, dy, dx, dg, NULL), SS_ERR_TOO_LARGE);
    CHECK_STATUS(ss_rmsnorm(impl, x, SS_MAX_N, 2, g, 1e-5, y), SS_ERR_TOO_LARGE);
    CHECK_STATUS(ss_rmsnorm(impl, x, R, D, g, -1e-9, y), SS_ERR_PARAM_RANGE);
    CHECK_STATUS(ss_layernorm(impl, x, R, D, g, b, 1.5, y), SS_ERR_PARAM_RANGE);
    CHECK_STATUS(ss_rmsnorm_backward(impl, x, R, D, g, NAN, dy, dx, dg), SS_ERR_PARAM_RANGE);
    x[4] = NAN;
    CHECK_STATUS(ss_rmsnorm(impl, x, R, D, g, 1e-5, y), SS_ERR_NAN);
    CHECK_STATUS(ss_layernorm_backward(impl, x, R, D, g, 1e-5, dy, dx, dg, NULL), SS_ERR_NAN);
    x[4] = 0.5f;
    g[2] = INFINITY;
    CHECK_STATUS(ss_layernorm(impl, x, R, D, g, b, 1e-5, y), SS_ERR_NONFINITE);
    CHECK_STATUS(ss_rmsnorm_backward(impl, x, R, D, g, 1e-5, dy, dx, dg), SS_ERR_NONFINITE);
    g[2] = 0.5f;
    b[1] = NAN;
    CHECK_STATUS(ss_layernorm(impl, x, R, D, g, b, 1e-5, y), SS_ERR_NAN);
    b[1] = 0.5f;
    dy[0] = -INFINITY;
    CHECK_STATUS(ss_rmsnorm_backward(impl, x, R, D, g, 1e-5, dy, dx, dg), SS_ERR_NONFINITE);
    CHECK_STATUS(ss_layernorm_backward(impl, x, R, D, g, 1e-5, dy, dx, dg, NULL), SS_ERR_NONFINITE);
    dy[0] = 0.5f;
    CHECK(st_untouched(y, R * D) && st_untouched(dx, R * D), "%s: an output was written", ss_impl_name(impl));
  }
}

/* 0 / 0 (eps = 0 and a zero or constant row) and results beyond FLT_MAX:
   SS_ERR_DOMAIN in both impls. */
TEST(norm_domain_errors) {
  float x[8] = {0, 0, 0, 0, 1, 0, 0, 0}, g[4] = {3e38f, 1, 1, 1}, y[8], dx[8], dg[4];
  float dy[8] = {3e38f, 1, 1, 1, 1, 1, 1, 1}, c[4] = {2, 2, 2, 2};
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_rmsnorm(impl, x, 1, 4, g, 0.0, y), SS_ERR_DOMAIN);
    CHECK_STATUS(ss_rmsnorm_backward(impl, x, 2, 4, g, 0.0, dy, dx, dg), SS_ERR_DOMAIN);
    CHECK_STATUS(ss_layernorm(impl, c, 1, 4, g, NULL, 0.0, y), SS_ERR_DOMAIN);
    CHECK_STATUS(ss_layernorm_backward(impl, c, 1, 4, g, 0.0, dy, dx, dg, NULL), SS_ERR_DOMAIN);
    /* row [1, 0, 0, 0]: xhat_0 = 2 (rms) or sqrt(3) (layer), times 3e38 */
    CHECK_STATUS(ss_rmsnorm(impl, x + 4, 1, 4, g, 0.0, y), SS_ERR_DOMAIN);
    CHECK_STATUS(ss_layernorm(impl, x + 4, 1, 4, g, NULL, 0.0, y), SS_ERR_DOMAIN);
    /* g dy = 9e76 */
    CHECK_STATUS(ss_rmsnorm_backward(impl, x + 4, 1, 4, g, 0.0, dy, dx, dg), SS_ERR_DOMAIN);
    CHECK_STATUS(ss_layernorm_backward(impl, x + 4, 1, 4, g, 0.0, dy, dx, dg, NULL), SS_ERR_DOMAIN);
  }
}

/* Random magnitudes (x, gain, dy from 1e-40 to 1e38; eps 0 or 1e-5): SS_OK
   only with finite outputs, the same status in both impls. */
TEST(norm_never_inf_with_ok) {
  enum { R = 3, D = 6 };
  float x[R * D], g[D], b[D], dy[R * D], y[R * D], dx[R * D], dg[D], db[D];
  ss_rng rng = {99};
  for (int t = 0; t < 200; t++) {
    const float sx = (float)pow(10.0, -40 + 78 * ss_rng_unif(&rng));
    const float sg = (float)pow(10.0, -40 + 78 * ss_rng_unif(&rng));
    const float sd = (float)pow(10.0, -40 + 78 * ss_rng_unif(&rng));
    const double eps = (t & 1) ? 0.0 : 1e-5;
    st_fill(x, R * D, 10 + t, -sx, sx);
    st_fill(g, D, 20 + t, -sg, sg);
    st_fill(b, D, 25 + t, -sg, sg);
    st_fill(dy, R * D, 30 + t, -sd, sd);
    ss_status st[2][4];
    FOR_EACH_IMPL(impl) {
      ss_status *s = st[impl];
      s[0] = ss_rmsnorm(impl, x, R, D, g, eps, y);
      if (s[0] == SS_OK) CHECK(mt_all_finite(y, R * D), "rmsnorm %s t=%d: non-finite y", ss_impl_name(impl), t);
      s[1] = ss_rmsnorm_backward(impl, x, R, D, g, eps, dy, dx, dg);
      if (s[1] == SS_OK)
        CHECK(mt_all_finite(dx, R * D) && mt_all_finite(dg, D), "rmsnorm backward %s t=%d", ss_impl_name(impl), t);
      s[2] = ss_layernorm(impl, x, R, D, g, b, eps, y);
      if (s[2] == SS_OK) CHECK(mt_all_finite(y, R * D), "layernorm %s t=%d: non-finite y", ss_impl_name(impl), t);
      s[3] = ss_layernorm_backward(impl, x, R, D, g, eps, dy, dx, dg, db);
      if (s[3] == SS_OK)
        CHECK(mt_all_finite(dx, R * D) && mt_all_finite(dg, D) && mt_all_finite(db, D),
              "layernorm backward %s t=%d", ss_impl_name(impl), t);
    }
    if (ss_impl_available(SS_IMPL_SIMD))
      for (int k = 0; k < 4; k++)
        CHECK(st[0][k] == st[1][k], "t=%d call %d: scalar %d, simd %d", t, k, st[0][k], st[1][k]);
  }
}
