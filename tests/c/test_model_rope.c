/*
 * ss_rope / ss_rope_backward and the model's ss_rope_table +
 * ss_rope_apply (core/src/model/rope.c, model/rope.h) against a float64
 * rotation by the double angle a = (double)p * pow(base, -2.0 * i / hd),
 * p = p0 + r % period (the formula rope.c states), with unrounded double
 * cos(a), sin(a).
 *
 * Bounds (rope.c; u = 2^-24), per output of the pair (x0, x1):
 *   forward / backward vs float64:  3.01 u (|x0 c| + |x1 s|) + 2^-148
 *     (c, s rounded once, the products, the sum);
 *   each pair's norm:  sqrt(2) (3.01 u (|x0| + |x1|) + 2^-148) + 2^-50 |x|;
 *   vs the rotation by the float c, s (the matrix backward transposes
 *     exactly): 2.01 u (|x0| + |x1|) + 2^-148, from which
 *     |<y, dy> - <x, dx>| <= sum_pairs [E(x) (|dy0| + |dy1|) + (|x0| + |x1|) E(dy)]
 *                           + 2 N 2^-53 sum (|y dy| + |x dx|)   (double sums)
 *     and, L = <y, w> being linear in x, central differences of L in x_k
 *     equal dx_k = rope_backward(w)_k up to E(w) + (|w0| + |w1|)
 *     (E(x+) + E(x-)) / (x+ - x-) + 2 N 2^-53 sum |w y| / (x+ - x-).
 * SIMD equals scalar bit for bit; in place, table + apply, and a wrapped
 * position give the same bits as the plain call; position 0 is the
 * identity; the table's entries are within 2^-24 |cos a| (|sin a|).
 */
#include <string.h>

#include "harness.h"
#include "model/rope.h"
#include "model_testing.h"

typedef struct rope_case {
  size_t rows, d, heads, period, p0;
  double base;
  float scale; /* x, dy uniform in [-scale, scale) */
} rope_case;

static const rope_case CASES[] = {
    {7, 384, 8, 7, 0, 10000.0, 2.0f},           /* the model's largest d, hd 48, row 0 at p 0 */
    {13, 128, 4, 5, 1000, 10000.0, 2.0f},       /* positions wrap (period < rows), p ~ 1000 */
    {9, 2, 1, 9, 3, 10000.0, 1.0f},             /* hd 2 */
    {6, 16, 8, 6, 16380, 10000.0, 3.0f},        /* hd 2 in 8 heads, p ~ 16384 */
    {5, 24, 4, 3, 0, 500.0, 1.0f},              /* hd 6: an odd pair count (SIMD tail) */
    {3, 400, 1, 3, 7, 10000.0, 1.0f},           /* hd 400: two chunks of pairs (192 + 8) */
    {4, 40, 2, 2, (1u << 24) - 1, 10000.0, 1.0f}, /* the largest positions, 2^24 - 1 and 2^24 */
    {11, 64, 2, 1, 16384, 10000.0, 1.0f},       /* period 1: every row at p0 */
    {5, 32, 2, 5, 100, 10000.0, 1e-38f},        /* subnormal products */
    {5, 32, 4, 5, 100, 1.5, 1e30f},             /* large values, small base */
};
#define NCASES (sizeof CASES / sizeof CASES[0])

#define B_ROT 3.01  /* in u: vs the float64 rotation by the double angle */
#define B_FLT 2.01  /* in u: vs the rotation by the float c, s */
#define TINY 0x1p-148

static size_t case_n(const rope_case *c) { return c->rows * c->d; }

static double angle(size_t p, size_t i, size_t hd, double base) {
  return (double)p * pow(base, -2.0 * i / hd);
}

/* The float64 rotation (inverse: by -a) of x into out; size[j]: the size
   |x0 c| + |x1 s| of output j's two terms (its bound's factor). */
static void rope64(const rope_case *c, const float *x, bool inverse, double *out, double *size) {
  const size_t hd = c->d / c->heads;
  for (size_t r = 0; r < c->rows; r++) {
    const size_t p = c->p0 + r % c->period;
    for (size_t h = 0; h < c->heads; h++)
      for (size_t i = 0; i < hd / 2; i++) {
        const size_t j = r * c->d + h * hd + 2 * i;
        const double a = angle(p, i, hd, c->base), co = cos(a), si = inverse ? -sin(a) : sin(a);
        const double x0 = x[j], x1 = x[j + 1];
        out[j] = x0 * co - x1 * si;
        out[j + 1] = x0 * si + x1 * co;
        size[j] = fabs(x0 * co) + fabs(x1 * si);
        size[j + 1] = fabs(x0 * si) + fabs(x1 * co);
      }
  }
}

static void fill_case(const rope_case *c, float *x, uint64_t seed) {
  st_fill(x, case_n(c), seed, -c->scale, c->scale);
}

static ss_status call(bool backward, ss_impl impl, const rope_case *c, const float *x, float *y) {
  return backward ? ss_rope_backward(impl, x, c->rows, c->d, c->heads, c->period, c->p0, c->base, y)
                  : ss_rope(impl, x, c->rows, c->d, c->heads, c->period, c->p0, c->base, y);
}

/* |x0| + |x1| of the pair holding j. */
static double pair_l1(const float *x, size_t j) {
  const size_t k = j & ~(size_t)1;
  return fabs((double)x[k]) + fabs((double)x[k + 1]);
}

TEST(rope_matches_float64) {
  double worst = 0.0;
  for (size_t ci = 0; ci < NCASES; ci++) {
    const rope_case *c = &CASES[ci];
    const size_t n = case_n(c);
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
    double *ref = ss_test_alloc(n * 8), *size = ss_test_alloc(n * 8);
    fill_case(c, x, 10 + ci);
    for (int back = 0; back < 2; back++) {
      rope64(c, x, back, ref, size);
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(call(back, impl, c, x, y), SS_OK);
        for (size_t j = 0; j < n; j++) {
          const double err = fabs(y[j] - ref[j]), bound = B_ROT * MT_U * size[j] + TINY;
          CHECK(err <= bound, "case %zu %s %s j=%zu: %.9g vs %.17g (%.3g u of |x0 c| + |x1 s|)", ci,
                back ? "backward" : "forward", ss_impl_name(impl), j, y[j], ref[j],
                err / (MT_U * size[j]));
          if (size[j] > 0x1p-100) worst = fmax(worst, err / (MT_U * size[j]));
        }
      }
    }
  }
  printf("    worst error: %.3g 2^-24 (|x0 c| + |x1 s|) (bound %.2f)\n", worst, B_ROT);
}

TEST(rope_simd_equals_scalar) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  for (size_t ci = 0; ci < NCASES; ci++) {
    const rope_case *c = &CASES[ci];
    const size_t n = case_n(c);
    float *x = ss_test_alloc(n * 4), *y0 = ss_test_alloc(n * 4), *y1 = ss_test_alloc(n * 4);
    fill_case(c, x, 20 + ci);
    for (int back = 0; back < 2; back++) {
      CHECK_STATUS(call(back, SS_IMPL_SCALAR, c, x, y0), SS_OK);
      CHECK_STATUS(call(back, SS_IMPL_SIMD, c, x, y1), SS_OK);
      for (size_t j = 0; j < n; j++)
        CHECK(memcmp(&y0[j], &y1[j], 4) == 0, "case %zu %s j=%zu: scalar %a simd %a", ci,
              back ? "backward" : "forward", j, y0[j], y1[j]);
    }
  }
}

TEST(rope_keeps_norms) {
  for (size_t ci = 0; ci < NCASES; ci++) {
    const rope_case *c = &CASES[ci];
    const size_t n = case_n(c);
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4);
    fill_case(c, x, 30 + ci);
    FOR_EACH_IMPL(impl) {
      for (int back = 0; back < 2; back++) {
        CHECK_STATUS(call(back, impl, c, x, y), SS_OK);
        for (size_t j = 0; j < n; j += 2) {
          const double nx = hypot(x[j], x[j + 1]), ny = hypot(y[j], y[j + 1]);
          const double bound = sqrt(2.0) * (B_ROT * MT_U * pair_l1(x, j) + TINY) + 0x1p-50 * nx;
          CHECK(fabs(ny - nx) <= bound, "case %zu %s j=%zu: |y| %.17g |x| %.17g", ci,
                ss_impl_name(impl), j, ny, nx);
        }
      }
    }
  }
}

/* Position 0: cos 1, sin 0 -- y = x (as values: x0 - 0 may turn -0 into +0). */
TEST(rope_position_zero_is_identity) {
  enum { ROWS = 5, D = 384, H = 8 };
  float *x = ss_test_alloc(ROWS * D * 4), *y = ss_test_alloc(ROWS * D * 4);
  st_fill(x, ROWS * D, 40, -3.0f, 3.0f);
  x[0] = -0.0f, x[3] = 0.0f, x[7] = 1e-40f;
  FOR_EACH_IMPL(impl) {
    for (int back = 0; back < 2; back++) {
      const rope_case c = {ROWS, D, H, 1, 0, 10000.0, 1.0f};
      CHECK_STATUS(call(back, impl, &c, x, y), SS_OK);
      for (size_t j = 0; j < ROWS * D; j++)
        CHECK(y[j] == x[j], "%s j=%zu: %a from %a", ss_impl_name(impl), j, y[j], x[j]);
    }
  }
}

/* <y, dy> = <x, rope_backward(dy)>: the same matrix, transposed. */
TEST(rope_backward_is_the_transpose) {
  double worst = 0.0;
  for (size_t ci = 0; ci < NCASES; ci++) {
    const rope_case *c = &CASES[ci];
    const size_t n = case_n(c);
    float *x = ss_test_alloc(n * 4), *dy = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4),
          *dx = ss_test_alloc(n * 4);
    fill_case(c, x, 50 + ci);
    fill_case(c, dy, 60 + ci);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_rope(impl, x, c->rows, c->d, c->heads, c->period, c->p0, c->base, y), SS_OK);
      CHECK_STATUS(ss_rope_backward(impl, dy, c->rows, c->d, c->heads, c->period, c->p0, c->base, dx),
                   SS_OK);
      double a = 0.0, b = 0.0, abs_sum = 0.0, bound = 0.0;
      for (size_t j = 0; j < n; j++) {
        a += (double)y[j] * dy[j];
        b += (double)x[j] * dx[j];
        abs_sum += fabs((double)y[j] * dy[j]) + fabs((double)x[j] * dx[j]);
      }
      for (size_t j = 0; j < n; j += 2) {
        const double lx = pair_l1(x, j), ld = pair_l1(dy, j);
        bound += (B_FLT * MT_U * lx + TINY) * ld + lx * (B_FLT * MT_U * ld + TINY);
      }
      bound += 2.0 * n * 0x1p-53 * abs_sum;
      CHECK(fabs(a - b) <= bound, "case %zu %s: <y,dy> %.17g <x,dx> %.17g (bound %.3g)", ci,
            ss_impl_name(impl), a, b, bound);
      if (bound > 0) worst = fmax(worst, fabs(a - b) / bound);
    }
  }
  printf("    <y,dy> - <x,dx>: worst %.3g of the bound\n", worst);
}

/* L(x) = <rope(x), w> in double; central differences in x_k against
   rope_backward(w)_k (L is linear: the differences are rounding only). */
TEST(rope_backward_matches_finite_differences) {
  double worst = 0.0;
  size_t checked = 0;
  for (size_t ci = 0; ci < NCASES; ci++) {
    const rope_case *c = &CASES[ci];
    const size_t n = case_n(c);
    float *x = ss_test_alloc(n * 4), *w = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4),
          *dx = ss_test_alloc(n * 4);
    fill_case(c, x, 70 + ci);
    st_fill(w, n, 80 + ci, -1.0f, 1.0f);
    const size_t step = n / 48 + 1;
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_rope_backward(impl, w, c->rows, c->d, c->heads, c->period, c->p0, c->base, dx),
                   SS_OK);
      for (size_t k = ci % 3; k < n; k += step) {
        const float xk = x[k], h = c->scale / 16;
        double L[2], wy[2], E[2];
        const float xs[2] = {xk + h, xk - h};
        for (int t = 0; t < 2; t++) {
          x[k] = xs[t];
          CHECK_STATUS(ss_rope(impl, x, c->rows, c->d, c->heads, c->period, c->p0, c->base, y),
                       SS_OK);
          L[t] = 0.0, wy[t] = 0.0;
          for (size_t j = 0; j < n; j++) L[t] += (double)y[j] * w[j], wy[t] += fabs((double)y[j] * w[j]);
          E[t] = B_FLT * MT_U * pair_l1(x, k) + TINY;
        }
        x[k] = xk;
        const double den = (double)xs[0] - (double)xs[1], fd = (L[0] - L[1]) / den;
        const double tol = B_FLT * MT_U * pair_l1(w, k) + TINY +
                           pair_l1(w, k) * (E[0] + E[1]) / den +
                           2.0 * n * 0x1p-53 * (wy[0] + wy[1]) / den;
        CHECK(fabs(fd - dx[k]) <= tol, "case %zu %s k=%zu: fd %.17g dx %.9g (tol %.3g)", ci,
              ss_impl_name(impl), k, fd, dx[k], tol);
        worst = fmax(worst, fabs(fd - dx[k]) / tol);
        checked++;
      }
    }
  }
  printf("    %zu differences; worst %.3g of the bound\n", checked, worst);
}

TEST(rope_in_place_gives_the_same_bits) {
  for (size_t ci = 0; ci < NCASES; ci++) {
    const rope_case *c = &CASES[ci];
    const size_t n = case_n(c);
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4), *z = ss_test_alloc(n * 4);
    fill_case(c, x, 90 + ci);
    FOR_EACH_IMPL(impl) {
      for (int back = 0; back < 2; back++) {
        CHECK_STATUS(call(back, impl, c, x, y), SS_OK);
        memcpy(z, x, n * 4);
        CHECK_STATUS(call(back, impl, c, z, z), SS_OK);
        CHECK(memcmp(y, z, n * 4) == 0, "case %zu %s %s: in place differs", ci, ss_impl_name(impl),
              back ? "backward" : "forward");
      }
    }
  }
}

/* The model's path: a table of positions up to p0 + period - 1, then the
   rotation in place -- the same bits as the public call. */
TEST(rope_table_apply_equals_public_call) {
  size_t tested = 0;
  for (size_t ci = 0; ci < NCASES; ci++) {
    const rope_case *c = &CASES[ci];
    const size_t n = case_n(c), hd = c->d / c->heads, positions = c->p0 + c->period;
    if (positions * hd > ((size_t)1 << 22)) continue; /* p ~ 2^24: a 2^24 hd table */
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4), *z = ss_test_alloc(n * 4);
    float *cs = ss_test_alloc(positions * hd * 4);
    fill_case(c, x, 100 + ci);
    ss_rope_table(positions, hd, c->base, cs);
    FOR_EACH_IMPL(impl) {
      for (int back = 0; back < 2; back++) {
        CHECK_STATUS(call(back, impl, c, x, y), SS_OK);
        memcpy(z, x, n * 4);
        ss_rope_apply(impl, z, c->rows, c->d, c->heads, c->period, c->p0, cs, back);
        for (size_t j = 0; j < n; j++)
          CHECK(memcmp(&y[j], &z[j], 4) == 0, "case %zu %s %s j=%zu: call %a table %a", ci,
                ss_impl_name(impl), back ? "backward" : "forward", j, y[j], z[j]);
      }
    }
    tested++;
  }
  CHECK(tested >= NCASES - 1, "only %zu cases compared", tested);
}

/* The table against double cos and sin of the stated angle, rounded once. */
TEST(rope_table_values) {
  enum { P = 1200, HD = 48 };
  float *cs = ss_test_alloc(P * HD * 4);
  ss_rope_table(P, HD, 10000.0, cs);
  for (size_t p = 0; p < P; p++)
    for (size_t i = 0; i < HD / 2; i++) {
      const double a = angle(p, i, HD, 10000.0), co = cos(a), si = sin(a);
      const float *e = cs + 2 * (p * (HD / 2) + i);
      CHECK(fabs(e[0] - co) <= MT_U * fabs(co) && fabs(e[1] - si) <= MT_U * fabs(si),
            "p=%zu i=%zu: (%.9g, %.9g) vs (%.17g, %.17g)", p, i, e[0], e[1], co, si);
    }
  CHECK(cs[0] == 1.0f && cs[1] == 0.0f, "position 0: (%g, %g)", cs[0], cs[1]);
}

/* Row r of a call with period < rows is the one-row call at p0 + r % period. */
TEST(rope_positions_wrap) {
  enum { ROWS = 11, D = 128, H = 4, PERIOD = 4, P0 = 1000 };
  float *x = ss_test_alloc(ROWS * D * 4), *y = ss_test_alloc(ROWS * D * 4), z[D];
  st_fill(x, ROWS * D, 110, -2.0f, 2.0f);
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_rope(impl, x, ROWS, D, H, PERIOD, P0, 10000.0, y), SS_OK);
    for (size_t r = 0; r < ROWS; r++) {
      CHECK_STATUS(ss_rope(impl, x + r * D, 1, D, H, 1, P0 + r % PERIOD, 10000.0, z), SS_OK);
      CHECK(memcmp(y + r * D, z, sizeof z) == 0, "%s row %zu differs from position %zu",
            ss_impl_name(impl), r, (size_t)(P0 + r % PERIOD));
    }
    /* the position is used: row 0 at P0 + 1 is another row */
    CHECK_STATUS(ss_rope(impl, x, 1, D, H, 1, P0 + 1, 10000.0, z), SS_OK);
    CHECK(memcmp(y, z, sizeof z) != 0, "%s: positions %d and %d give the same row", ss_impl_name(impl),
          P0, P0 + 1);
  }
}

/* Every status of the header's list, in its order, and nothing written. */
TEST(rope_bad_inputs) {
  enum { ROWS = 3, D = 12, N = ROWS * D };
  float x[N], y[N], dx[N];
  st_fill(x, N, 120, -1.0f, 1.0f);
  st_poison(y, N);
  st_poison(dx, N);
  const size_t big = (size_t)1 << 24;
#define BOTH(impl, xx, rows, d, heads, period, p0, base, out, want)                              \
  do {                                                                                           \
    CHECK_STATUS(ss_rope(impl, xx, rows, d, heads, period, p0, base, out), want);                \
    CHECK_STATUS(ss_rope_backward(impl, xx, rows, d, heads, period, p0, base, dx), want);        \
  } while (0)
  BOTH(SS_IMPL_SCALAR, NULL, ROWS, D, 2, 3, 0, 1e4, y, SS_ERR_NULL);
  CHECK_STATUS(ss_rope(SS_IMPL_SCALAR, x, ROWS, D, 2, 3, 0, 1e4, NULL), SS_ERR_NULL);
  CHECK_STATUS(ss_rope_backward(SS_IMPL_SCALAR, x, ROWS, D, 2, 3, 0, 1e4, NULL), SS_ERR_NULL);
  BOTH(SS_IMPL_COUNT, NULL, 0, 0, 0, 0, 0, NAN, y, SS_ERR_NULL); /* NULL first */
  BOTH(SS_IMPL_COUNT, x, ROWS, D, 2, 3, 0, 1e4, y, SS_ERR_UNSUPPORTED);
  BOTH((ss_impl)-1, x, ROWS, D, 2, 3, 0, 1e4, y, SS_ERR_UNSUPPORTED);
  BOTH(SS_IMPL_COUNT, x, 0, D, 0, 0, 0, NAN, y, SS_ERR_UNSUPPORTED); /* impl before empty */
  FOR_EACH_IMPL(impl) {
    BOTH(impl, x, 0, D, 2, 3, 0, 1e4, y, SS_ERR_EMPTY);
    BOTH(impl, x, ROWS, 0, 2, 3, 0, 1e4, y, SS_ERR_EMPTY);
    BOTH(impl, x, 0, D, 0, 0, 0, NAN, y, SS_ERR_EMPTY); /* empty before the parameters */
    BOTH(impl, x, SS_MAX_N + 1, 2, 1, 1, 0, 1e4, y, SS_ERR_TOO_LARGE);
    BOTH(impl, x, 2, SS_MAX_N + 2, 1, 1, 0, 1e4, y, SS_ERR_TOO_LARGE);
    BOTH(impl, x, (size_t)1 << 13, (size_t)1 << 14, 2, 1, 0, 1e4, y, SS_ERR_TOO_LARGE); /* rows d */
    BOTH(impl, x, (size_t)1 << 13, (size_t)1 << 14, 0, 0, 0, NAN, y, SS_ERR_TOO_LARGE);
    BOTH(impl, x, ROWS, D, 0, 3, 0, 1e4, y, SS_ERR_PARAM_RANGE);          /* heads 0 */
    BOTH(impl, x, ROWS, D, 5, 3, 0, 1e4, y, SS_ERR_PARAM_RANGE);          /* 5 does not divide 12 */
    BOTH(impl, x, ROWS, D, 13, 3, 0, 1e4, y, SS_ERR_PARAM_RANGE);
    BOTH(impl, x, ROWS, D, 2, 0, 0, 1e4, y, SS_ERR_PARAM_RANGE);          /* period 0 */
    BOTH(impl, x, ROWS, D, 2, 3, 0, 1.0, y, SS_ERR_PARAM_RANGE);          /* base <= 1 */
    BOTH(impl, x, ROWS, D, 2, 3, 0, 0.5, y, SS_ERR_PARAM_RANGE);
    BOTH(impl, x, ROWS, D, 2, 3, 0, -1e4, y, SS_ERR_PARAM_RANGE);
    BOTH(impl, x, ROWS, D, 2, 3, 0, NAN, y, SS_ERR_PARAM_RANGE);
    BOTH(impl, x, ROWS, D, 2, 3, 0, INFINITY, y, SS_ERR_PARAM_RANGE);
    BOTH(impl, x, ROWS, D, 2, 3, 0, -INFINITY, y, SS_ERR_PARAM_RANGE);
    BOTH(impl, x, ROWS, D, 2, 2, big, 1e4, y, SS_ERR_PARAM_RANGE);        /* p0 + period - 1 > 2^24 */
    BOTH(impl, x, ROWS, D, 2, big + 2, 0, 1e4, y, SS_ERR_PARAM_RANGE);
    BOTH(impl, x, ROWS, D, 2, 1, big + 1, 1e4, y, SS_ERR_PARAM_RANGE);
    BOTH(impl, x, ROWS, D, 2, 2, SIZE_MAX, 1e4, y, SS_ERR_PARAM_RANGE);   /* no wrap-around */
    BOTH(impl, x, ROWS, D, 2, SIZE_MAX, 1, 1e4, y, SS_ERR_PARAM_RANGE);
    BOTH(impl, x, ROWS, D, 4, 3, 0, 1e4, y, SS_ERR_LENGTH);               /* hd 3 */
    BOTH(impl, x, ROWS, D, 12, 3, 0, 1e4, y, SS_ERR_LENGTH);              /* hd 1 */
    BOTH(impl, x, ROWS, D, 4, 0, 0, 1e4, y, SS_ERR_PARAM_RANGE);          /* parameters before length */
    CHECK(st_untouched(y, N) && st_untouched(dx, N), "%s: an output was written", ss_impl_name(impl));
    x[7] = NAN;
    BOTH(impl, x, ROWS, D, 4, 3, 0, 1e4, y, SS_ERR_LENGTH);               /* length before values */
    BOTH(impl, x, ROWS, D, 2, 3, 0, 1e4, y, SS_ERR_NAN);
    x[N - 1] = INFINITY;
    BOTH(impl, x, ROWS, D, 2, 3, 0, 1e4, y, SS_ERR_NAN);                  /* NaN before Inf */
    x[7] = 0.5f;
    BOTH(impl, x, ROWS, D, 2, 3, 0, 1e4, y, SS_ERR_NONFINITE);
    x[N - 1] = -INFINITY;
    BOTH(impl, x, ROWS, D, 2, 3, 0, 1e4, y, SS_ERR_NONFINITE);
    x[N - 1] = 0.25f;
    CHECK(st_untouched(y, N) && st_untouched(dx, N), "%s: an output was written", ss_impl_name(impl));
    /* the limits themselves are fine */
    BOTH(impl, x, ROWS, D, 2, 1, big, 1e4, y, SS_OK);
    BOTH(impl, x, ROWS, D, 2, 2, big - 1, 1e4, y, SS_OK);
    BOTH(impl, x, ROWS, D, 6, 3, 0, 1.0000001, y, SS_OK);
    CHECK(mt_all_finite(y, N) && mt_all_finite(dx, N), "%s: non-finite output", ss_impl_name(impl));
    st_poison(y, N);
    st_poison(dx, N);
  }
#undef BOTH
}
