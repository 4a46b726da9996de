/*
 * ss_linear / ss_linear_backward (core/src/model/linear.c) against float64.
 *
 * Bounds (linear.c): the scalar reference rounds each output once,
 * |c - c64| <= 2^-24 |c64|; SIMD sums blocks of KB = 128 terms in float,
 * |c - c64| <= (min(K, 128) + ceil(K / 128) + 1) 2^-24 (|c0| + sum |A B|)
 * with K the length of the sum (in for y, out for dx, rows for dw and db).
 * Backward: central differences of the float64 loss sum dy (x W^T + b),
 * which is linear in each input, so the differences are exact but for
 * rounding (h = 1/4: 2^-50 S / h, S the sum of the loss's |terms|).
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "model_testing.h"

typedef struct lin_shape {
  size_t rows, in, out;
} lin_shape;

/* rows = 1, in = 1, sizes off multiples of 4 and 8, K beyond the 128 block,
   out beyond the 64-wide packed panel. */
static const lin_shape SMALL[] = {{1, 1, 1}, {1, 5, 3}, {3, 1, 2}, {5, 7, 3}, {4, 8, 8},
                                  {9, 13, 11}, {2, 3, 9}};
static const lin_shape LARGE[] = {{17, 130, 6}, {33, 64, 70}, {6, 260, 5}, {131, 9, 13},
                                  {300, 16, 4}};
#define NSMALL (sizeof SMALL / sizeof SMALL[0])
#define NLARGE (sizeof LARGE / sizeof LARGE[0])

static double simd_factor(size_t K) {
  return (double)((K < 128 ? K : 128) + (K + 127) / 128 + 1) * MT_U;
}

/* The bound of impl on a value whose float64 is ref and whose |terms| sum to s. */
static double bound(ss_impl impl, size_t K, double ref, double s) {
  return impl == SS_IMPL_SIMD ? simd_factor(K) * s + K * 0x1p-149 : MT_U * fabs(ref) + 0x1p-149;
}

typedef struct lin_io {
  size_t rows, in, out;
  float *x, *w, *b, *dy;
} lin_io;

static void lin_alloc(lin_io *io, const lin_shape *s, uint64_t seed) {
  io->rows = s->rows, io->in = s->in, io->out = s->out;
  io->x = ss_test_alloc(s->rows * s->in * 4);
  io->w = ss_test_alloc(s->out * s->in * 4);
  io->b = ss_test_alloc(s->out * 4);
  io->dy = ss_test_alloc(s->rows * s->out * 4);
  st_fill(io->x, s->rows * s->in, seed, -2.0f, 2.0f);
  st_fill(io->w, s->out * s->in, seed + 1, -1.0f, 1.0f);
  st_fill(io->b, s->out, seed + 2, -1.0f, 1.0f);
  st_fill(io->dy, s->rows * s->out, seed + 3, -1.0f, 1.0f);
}

TEST(linear_forward_matches_float64) {
  for (int large = 0; large < 2; large++) {
    const lin_shape *sh = large ? LARGE : SMALL;
    for (size_t c = 0; c < (large ? NLARGE : NSMALL); c++) {
      lin_io io;
      lin_alloc(&io, &sh[c], 100 + c + 50 * large);
      float *y = ss_test_alloc(io.rows * io.out * 4);
      for (int withb = 0; withb < 2; withb++) {
        FOR_EACH_IMPL(impl) {
          CHECK_STATUS(ss_linear(impl, io.x, io.rows, io.in, io.w, withb ? io.b : NULL, io.out, y),
                       SS_OK);
          for (size_t r = 0; r < io.rows; r++)
            for (size_t o = 0; o < io.out; o++) {
              double ref = withb ? io.b[o] : 0.0, s = fabs(ref);
              for (size_t i = 0; i < io.in; i++) {
                ref += (double)io.x[r * io.in + i] * io.w[o * io.in + i];
                s += fabs((double)io.x[r * io.in + i] * io.w[o * io.in + i]);
              }
              const double err = fabs(y[r * io.out + o] - ref);
              CHECK(err <= bound(impl, io.in, ref, s),
                    "%s %zux%zux%zu b=%d y[%zu,%zu]=%.9g ref %.12g (err %.3g, bound %.3g)",
                    ss_impl_name(impl), io.rows, io.in, io.out, withb, r, o, y[r * io.out + o],
                    ref, err, bound(impl, io.in, ref, s));
            }
        }
      }
    }
  }
}

/* The float64 loss sum_ro dy_ro (b_o + sum_i x_ri w_oi) of v = [x, w, b]. */
static double lin_loss(const double *v, size_t nv, const void *ctx) {
  (void)nv;
  const lin_io *io = ctx;
  const double *x = v, *w = v + io->rows * io->in, *b = w + io->out * io->in;
  double L = 0.0;
  for (size_t r = 0; r < io->rows; r++)
    for (size_t o = 0; o < io->out; o++) {
      double y = b[o];
      for (size_t i = 0; i < io->in; i++) y += x[r * io->in + i] * w[o * io->in + i];
      L += io->dy[r * io->out + o] * y;
    }
  return L;
}

TEST(linear_backward_matches_finite_differences) {
  for (size_t c = 0; c < NSMALL; c++) {
    lin_io io;
    lin_alloc(&io, &SMALL[c], 200 + c);
    const size_t R = io.rows, I = io.in, O = io.out, nv = R * I + O * I + O;
    double *v = ss_test_alloc(nv * 8);
    mt_widen(io.x, R * I, v);
    mt_widen(io.w, O * I, v + R * I);
    mt_widen(io.b, O, v + R * I + O * I);
    double S = 0.0; /* sum of the loss's |terms| */
    for (size_t r = 0; r < R; r++)
      for (size_t o = 0; o < O; o++) {
        double t = fabs(io.b[o]);
        for (size_t i = 0; i < I; i++) t += fabs((double)io.x[r * I + i] * io.w[o * I + i]);
        S += fabs(io.dy[r * O + o]) * t;
      }
    const double h = 0.25, fd_err = 0x1p-50 * S / h;
    float *dx = ss_test_alloc(R * I * 4), *dw = ss_test_alloc(O * I * 4), *db = ss_test_alloc(O * 4);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_linear_backward(impl, io.x, R, I, io.w, O, io.dy, dx, dw, db), SS_OK);
      for (size_t r = 0; r < R; r++)
        for (size_t i = 0; i < I; i++) {
          double s = 0.0;
          for (size_t o = 0; o < O; o++) s += fabs((double)io.dy[r * O + o] * io.w[o * I + i]);
          const double fd = fd_central64(lin_loss, &io, v, nv, r * I + i, h);
          CHECK(fabs(dx[r * I + i] - fd) <= bound(impl, O, fd, s) + fd_err,
                "%s %zux%zux%zu dx[%zu,%zu]=%.9g fd %.12g", ss_impl_name(impl), R, I, O, r, i,
                dx[r * I + i], fd);
        }
      for (size_t o = 0; o < O; o++)
        for (size_t i = 0; i < I; i++) {
          double s = 0.0;
          for (size_t r = 0; r < R; r++) s += fabs((double)io.dy[r * O + o] * io.x[r * I + i]);
          const double fd = fd_central64(lin_loss, &io, v, nv, R * I + o * I + i, h);
          CHECK(fabs(dw[o * I + i] - fd) <= bound(impl, R, fd, s) + fd_err,
                "%s %zux%zux%zu dw[%zu,%zu]=%.9g fd %.12g", ss_impl_name(impl), R, I, O, o, i,
                dw[o * I + i], fd);
        }
      for (size_t o = 0; o < O; o++) {
        double s = 0.0;
        for (size_t r = 0; r < R; r++) s += fabs(io.dy[r * O + o]);
        const double fd = fd_central64(lin_loss, &io, v, nv, R * I + O * I + o, h);
        CHECK(fabs(db[o] - fd) <= bound(impl, R, fd, s) + fd_err, "%s db[%zu]=%.9g fd %.12g",
              ss_impl_name(impl), o, db[o], fd);
      }
    }
  }
}

/* The large shapes (two k blocks, two packed panels, a 300-row dw sum)
   against the float64 products; dx and db may be skipped (NULL). */
TEST(linear_backward_large_matches_float64) {
  for (size_t c = 0; c < NLARGE; c++) {
    lin_io io;
    lin_alloc(&io, &LARGE[c], 300 + c);
    const size_t R = io.rows, I = io.in, O = io.out;
    float *dx = ss_test_alloc(R * I * 4), *dw = ss_test_alloc(O * I * 4), *db = ss_test_alloc(O * 4),
          *dw2 = ss_test_alloc(O * I * 4);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_linear_backward(impl, io.x, R, I, io.w, O, io.dy, dx, dw, db), SS_OK);
      CHECK_STATUS(ss_linear_backward(impl, io.x, R, I, io.w, O, io.dy, NULL, dw2, NULL), SS_OK);
      CHECK(memcmp(dw, dw2, O * I * 4) == 0, "%s: dw depends on whether dx, db are asked for",
            ss_impl_name(impl));
      for (size_t r = 0; r < R; r++)
        for (size_t i = 0; i < I; i++) {
          double ref = 0.0, s = 0.0;
          for (size_t o = 0; o < O; o++) {
            ref += (double)io.dy[r * O + o] * io.w[o * I + i];
            s += fabs((double)io.dy[r * O + o] * io.w[o * I + i]);
          }
          CHECK(fabs(dx[r * I + i] - ref) <= bound(impl, O, ref, s), "%s dx[%zu,%zu]=%.9g ref %.12g",
                ss_impl_name(impl), r, i, dx[r * I + i], ref);
        }
      for (size_t o = 0; o < O; o++) {
        double rb = 0.0, sb = 0.0;
        for (size_t r = 0; r < R; r++) rb += io.dy[r * O + o], sb += fabs(io.dy[r * O + o]);
        CHECK(fabs(db[o] - rb) <= bound(impl, R, rb, sb), "%s db[%zu]=%.9g ref %.12g",
              ss_impl_name(impl), o, db[o], rb);
        for (size_t i = 0; i < I; i++) {
          double ref = 0.0, s = 0.0;
          for (size_t r = 0; r < R; r++) {
            ref += (double)io.dy[r * O + o] * io.x[r * I + i];
            s += fabs((double)io.dy[r * O + o] * io.x[r * I + i]);
          }
          CHECK(fabs(dw[o * I + i] - ref) <= bound(impl, R, ref, s), "%s dw[%zu,%zu]=%.9g ref %.12g",
                ss_impl_name(impl), o, i, dw[o * I + i], ref);
        }
      }
    }
  }
}

/* SIMD against the scalar reference: within the sum of their bounds. */
TEST(linear_simd_matches_scalar) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  for (size_t c = 0; c < NLARGE; c++) {
    lin_io io;
    lin_alloc(&io, &LARGE[c], 400 + c);
    const size_t R = io.rows, I = io.in, O = io.out;
    float *y0 = ss_test_alloc(R * O * 4), *y1 = ss_test_alloc(R * O * 4);
    CHECK_STATUS(ss_linear(SS_IMPL_SCALAR, io.x, R, I, io.w, io.b, O, y0), SS_OK);
    CHECK_STATUS(ss_linear(SS_IMPL_SIMD, io.x, R, I, io.w, io.b, O, y1), SS_OK);
    for (size_t r = 0; r < R; r++)
      for (size_t o = 0; o < O; o++) {
        double s = fabs(io.b[o]);
        for (size_t i = 0; i < I; i++) s += fabs((double)io.x[r * I + i] * io.w[o * I + i]);
        const double tol = (simd_factor(I) + MT_U) * s;
        CHECK(fabs(y0[r * O + o] - y1[r * O + o]) <= tol, "y[%zu,%zu]: scalar %.9g simd %.9g",
              r, o, y0[r * O + o], y1[r * O + o]);
      }
  }
}

/* Each check of the entry points, outputs untouched. */
TEST(linear_bad_inputs) {
  enum { R = 3, I = 5, O = 2 };
  float x[R * I], w[O * I], b[O], dy[R * O], y[R * O], dx[R * I], dw[O * I], db[O];
  st_fill(x, R * I, 1, -1, 1);
  st_fill(w, O * I, 2, -1, 1);
  st_fill(b, O, 3, -1, 1);
  st_fill(dy, R * O, 4, -1, 1);
  st_poison(y, R * O);
  st_poison(dw, O * I);
  CHECK_STATUS(ss_linear(SS_IMPL_SCALAR, NULL, R, I, w, b, O, y), SS_ERR_NULL);
  CHECK_STATUS(ss_linear(SS_IMPL_SCALAR, x, R, I, NULL, b, O, y), SS_ERR_NULL);
  CHECK_STATUS(ss_linear(SS_IMPL_SCALAR, x, R, I, w, b, O, NULL), SS_ERR_NULL);
  CHECK_STATUS(ss_linear_backward(SS_IMPL_SCALAR, NULL, R, I, w, O, dy, dx, dw, db), SS_ERR_NULL);
  CHECK_STATUS(ss_linear_backward(SS_IMPL_SCALAR, x, R, I, NULL, O, dy, dx, dw, db), SS_ERR_NULL);
  CHECK_STATUS(ss_linear_backward(SS_IMPL_SCALAR, x, R, I, w, O, NULL, dx, dw, db), SS_ERR_NULL);
  CHECK_STATUS(ss_linear_backward(SS_IMPL_SCALAR, x, R, I, w, O, dy, dx, NULL, db), SS_ERR_NULL);
  CHECK_STATUS(ss_linear(SS_IMPL_COUNT, x, R, I, w, b, O, y), SS_ERR_UNSUPPORTED);
  CHECK_STATUS(ss_linear_backward(SS_IMPL_COUNT, x, R, I, w, O, dy, dx, dw, db), SS_ERR_UNSUPPORTED);
  if (!ss_impl_available(SS_IMPL_SIMD))
    CHECK_STATUS(ss_linear(SS_IMPL_SIMD, x, R, I, w, b, O, y), SS_ERR_UNSUPPORTED);
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_linear(impl, x, 0, I, w, b, O, y), SS_ERR_EMPTY);
    CHECK_STATUS(ss_linear(impl, x, R, 0, w, b, O, y), SS_ERR_EMPTY);
    CHECK_STATUS(ss_linear(impl, x, R, I, w, b, 0, y), SS_ERR_EMPTY);
    CHECK_STATUS(ss_linear_backward(impl, x, R, I, w, 0, dy, dx, dw, db), SS_ERR_EMPTY);
    CHECK_STATUS(ss_linear(impl, x, SS_MAX_N + 1, I, w, b, O, y), SS_ERR_TOO_LARGE);
    /* each dimension fits, the products do not */
    CHECK_STATUS(ss_linear(impl, x, (size_t)1 << 13, (size_t)1 << 14, w, b, O, y), SS_ERR_TOO_LARGE);
    CHECK_STATUS(ss_linear(impl, x, R, (size_t)1 << 14, w, b, (size_t)1 << 13, y), SS_ERR_TOO_LARGE);
    CHECK_STATUS(ss_linear(impl, x, (size_t)1 << 13, 1, w, b, (size_t)1 << 14, y), SS_ERR_TOO_LARGE);
    CHECK_STATUS(ss_linear_backward(impl, x, (size_t)1 << 13, 1, w, (size_t)1 << 14, dy, dx, dw, db),
                 SS_ERR_TOO_LARGE);
    x[7] = NAN;
    CHECK_STATUS(ss_linear(impl, x, R, I, w, b, O, y), SS_ERR_NAN);
    CHECK_STATUS(ss_linear_backward(impl, x, R, I, w, O, dy, dx, dw, db), SS_ERR_NAN);
    x[7] = 0.5f;
    w[3] = -INFINITY;
    CHECK_STATUS(ss_linear(impl, x, R, I, w, b, O, y), SS_ERR_NONFINITE);
    CHECK_STATUS(ss_linear_backward(impl, x, R, I, w, O, dy, dx, dw, db), SS_ERR_NONFINITE);
    w[3] = 0.25f;
    b[1] = NAN;
    CHECK_STATUS(ss_linear(impl, x, R, I, w, b, O, y), SS_ERR_NAN);
    b[1] = 0.5f;
    dy[5] = INFINITY;
    CHECK_STATUS(ss_linear_backward(impl, x, R, I, w, O, dy, dx, dw, db), SS_ERR_NONFINITE);
    dy[5] = 0.5f;
    CHECK(st_untouched(y, R * O) && st_untouched(dw, O * I), "%s: an output was written",
          ss_impl_name(impl));
  }
}

/* A result beyond FLT_MAX is SS_ERR_DOMAIN in both impls; magnitudes whose
   bound passes 2^124 but whose results fit go through the scalar reference
   in both impls (the same bits), never Inf. */
TEST(linear_overflow_is_domain_error) {
  float x[4] = {1e30f, 2.0f, 1e19f, 1e19f}, w[4] = {1e30f, 1.0f, 1e19f, -1e19f}, y[2], dy[2] = {1e30f, 1e30f};
  float dx[4], dw[4];
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_linear(impl, x, 2, 2, w, NULL, 1, y), SS_ERR_DOMAIN);
    CHECK_STATUS(ss_linear_backward(impl, x, 2, 2, w, 1, dy, dx, dw, NULL), SS_ERR_DOMAIN);
    /* 1e19 * 1e19 + 1e19 * -1e19 = 0: every value fits */
    CHECK_STATUS(ss_linear(impl, x + 2, 1, 2, w + 2, NULL, 1, y), SS_OK);
    CHECK(y[0] == 0.0f, "%s: y = %g, want 0", ss_impl_name(impl), y[0]);
    /* 1e19 * 1e19 = 1e38 < FLT_MAX */
    CHECK_STATUS(ss_linear(impl, x + 2, 1, 1, w + 2, NULL, 1, y), SS_OK);
    CHECK(fabs(y[0] - 1e38) <= 1e38 * MT_U, "%s: y = %g, want 1e38", ss_impl_name(impl), y[0]);
  }
}

/* Random magnitudes from 1e-40 to 1e38: SS_OK only with finite outputs,
   and both impls give the same status. */
TEST(linear_never_inf_with_ok) {
  enum { R = 3, I = 6, O = 5 };
  float x[R * I], w[O * I], b[O], dy[R * O], y[R * O], dx[R * I], dw[O * I], db[O];
  ss_rng rng = {77};
  for (int t = 0; t < 300; t++) {
    const float sx = (float)pow(10.0, -40 + 78 * ss_rng_unif(&rng));
    const float sw = (float)pow(10.0, -40 + 78 * ss_rng_unif(&rng));
    st_fill(x, R * I, 10 + t, -sx, sx);
    st_fill(w, O * I, 20 + t, -sw, sw);
    st_fill(b, O, 30 + t, -sw, sw);
    st_fill(dy, R * O, 40 + t, -sx, sx);
    ss_status s0 = SS_STATUS_COUNT, s1 = SS_STATUS_COUNT;
    FOR_EACH_IMPL(impl) {
      const ss_status s = ss_linear(impl, x, R, I, w, b, O, y);
      CHECK(s == SS_OK || s == SS_ERR_DOMAIN, "status %d", s);
      if (s == SS_OK) CHECK(mt_all_finite(y, R * O), "%s t=%d: non-finite y with SS_OK", ss_impl_name(impl), t);
      const ss_status sb = ss_linear_backward(impl, x, R, I, w, O, dy, dx, dw, db);
      if (sb == SS_OK)
        CHECK(mt_all_finite(dx, R * I) && mt_all_finite(dw, O * I) && mt_all_finite(db, O),
              "%s t=%d: non-finite gradient with SS_OK", ss_impl_name(impl), t);
      if (impl == SS_IMPL_SCALAR) s0 = s; else s1 = s;
      (void)sb;
    }
    if (ss_impl_available(SS_IMPL_SIMD)) CHECK(s0 == s1, "t=%d: scalar %d, simd %d", t, s0, s1);
  }
}

/* ---- the SIMD impl's bits, pinned ----
   linear.c's SIMD product sums each c[m, n] in a fixed order: blocks of
   KB = 128 terms along k, each block's float sum started from zero and its
   terms added in k order by one multiply-add each (fused in the relaxed
   build where the engine fuses relaxed_madd, else a multiply and an add),
   and the block sums added in block order to c, which starts at c0 (or 0).
   Every tiling, packing and loop order of the kernel must keep it, so
   every model's training run keeps its bits across kernel changes. Here
   that order is written out plainly and compared bit for bit with ss_linear
   and ss_linear_backward (y, dx, dw, db) on shapes off every tile and
   block size. */

/* Whether this build's SIMD multiply-add rounds once: y = -1 * 1 + a^2 with
   a = 1 + 2^-12 is 2^-11 + 2^-24 fused, 2^-11 unfused (a^2 rounds to
   1 + 2^-11, a tie to even). */
static bool simd_madd_fused(void) {
  const float a = 1.0f + 0x1p-12f, x[2] = {-1.0f, a}, w[2] = {1.0f, a};
  float y = 0.0f;
  if (ss_linear(SS_IMPL_SIMD, x, 1, 2, w, NULL, 1, &y) != SS_OK) return false;
  return y == 0x1p-11f + 0x1p-24f;
}

/* c[m ldc + n] = c0[n] + sum_k a[m sam + k sak] b[k sbk + n sbn] in the
   kernel's order (above). */
static void pinned_gemm(size_t M, size_t N, size_t K, const float *a, size_t sam, size_t sak,
                        const float *b, size_t sbk, size_t sbn, const float *c0, float *c,
                        size_t ldc, bool fused) {
  for (size_t m = 0; m < M; m++)
    for (size_t n = 0; n < N; n++) {
      float cv = c0 ? c0[n] : 0.0f;
      for (size_t k0 = 0; k0 < K; k0 += 128) {
        float s = 0.0f;
        for (size_t k = k0; k < K && k < k0 + 128; k++) {
          const float p = a[m * sam + k * sak], q = b[k * sbk + n * sbn];
          if (fused) {
            s = fmaf(p, q, s);
          } else {
            const float pq = p * q;
            s = s + pq;
          }
        }
        cv = cv + s;
      }
      c[m * ldc + n] = cv;
    }
}

TEST(linear_simd_bits_pinned) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  /* rows, in, out: every row remainder of 4-, 6- and 8-row tiles, column
     remainders of 8 and 4 and partial vectors, K = 1, K past one and two
     128-blocks with a remainder, out past the 64-wide packed panel */
  static const lin_shape SHAPES[] = {{1, 1, 1},    {2, 3, 5},    {7, 9, 13},   {13, 130, 70},
                                     {6, 257, 12}, {29, 64, 33}, {131, 17, 9}, {8, 128, 128},
                                     {50, 129, 65}};
  const bool fused = simd_madd_fused();
#if !defined(SS_BUILD_RELAXED)
  CHECK(!fused, "the SIMD build's multiply-add rounds once: only the relaxed build may fuse");
#endif
  for (size_t c = 0; c < sizeof SHAPES / sizeof SHAPES[0]; c++) {
    lin_io io;
    lin_alloc(&io, &SHAPES[c], 500 + c);
    const size_t R = io.rows, I = io.in, O = io.out;
    float *y = ss_test_alloc(R * O * 4), *dx = ss_test_alloc(R * I * 4), *dw = ss_test_alloc(O * I * 4),
          *db = ss_test_alloc(O * 4), *ref = ss_test_alloc((R * I + O * I + R * O + O) * 4);
    static const float one = 1.0f;
    for (int withb = 0; withb < 2; withb++) {
      const float *b = withb ? io.b : NULL;
      CHECK_STATUS(ss_linear(SS_IMPL_SIMD, io.x, R, I, io.w, b, O, y), SS_OK);
      pinned_gemm(R, O, I, io.x, I, 1, io.w, 1, I, b, ref, O, fused);
      for (size_t i = 0; i < R * O; i++)
        CHECK(memcmp(&y[i], &ref[i], 4) == 0, "%zux%zux%zu b=%d: y[%zu] = %a, pinned order %a",
              R, I, O, withb, i, y[i], ref[i]);
    }
    CHECK_STATUS(ss_linear_backward(SS_IMPL_SIMD, io.x, R, I, io.w, O, io.dy, dx, dw, db), SS_OK);
    pinned_gemm(R, I, O, io.dy, O, 1, io.w, I, 1, NULL, ref, I, fused); /* dx = dy W */
    for (size_t i = 0; i < R * I; i++)
      CHECK(memcmp(&dx[i], &ref[i], 4) == 0, "%zux%zux%zu: dx[%zu] = %a, pinned order %a", R, I, O,
            i, dx[i], ref[i]);
    pinned_gemm(O, I, R, io.dy, 1, O, io.x, I, 1, NULL, ref, I, fused); /* dw = dy^T x */
    for (size_t i = 0; i < O * I; i++)
      CHECK(memcmp(&dw[i], &ref[i], 4) == 0, "%zux%zux%zu: dw[%zu] = %a, pinned order %a", R, I, O,
            i, dw[i], ref[i]);
    pinned_gemm(1, O, R, &one, 0, 0, io.dy, O, 1, NULL, ref, O, fused); /* db: column sums */
    for (size_t i = 0; i < O; i++)
      CHECK(memcmp(&db[i], &ref[i], 4) == 0, "%zux%zux%zu: db[%zu] = %a, pinned order %a", R, I, O,
            i, db[i], ref[i]);
  }
}
