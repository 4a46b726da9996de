/*
 * ss_embedding, ss_embedding_backward and ss_positions_sinusoidal
 * (core/src/model/embedding.c).
 *
 * The gather copies rows exactly. The scatter-add sums in float in token
 * order in both impls (the same bits); a row drawn c times is within
 * (c - 1) 2^-24 sum |dy| of the float64 sum, and the float64 loss
 * sum dy y(table) has the gradient that central differences give (linear:
 * exact but for rounding, 2^-50 S / h with h = 1/4). Positions: within 2^-24 |y64| + 1e-12 of a
 * float64 model using pow(10000, -2i/d).
 */
#include <string.h>

#include "harness.h"
#include "model_testing.h"

static void fill_tokens(uint32_t *t, size_t n, size_t vocab, uint64_t seed) {
  ss_rng r = {seed};
  for (size_t i = 0; i < n; i++) t[i] = (uint32_t)(ss_rng_u64(&r) % vocab);
}

TEST(embedding_gathers_rows) {
  enum { V = 11, D = 7, T = 23 };
  float table[V * D], y[T * D];
  uint32_t tok[T];
  st_fill(table, V * D, 1, -2, 2);
  fill_tokens(tok, T, V, 2);
  tok[0] = 0, tok[1] = V - 1;
  CHECK_STATUS(ss_embedding(table, V, D, tok, T, y), SS_OK);
  for (size_t t = 0; t < T; t++)
    CHECK(memcmp(y + t * D, table + tok[t] * D, D * 4) == 0, "row %zu is not table[%u]", t, tok[t]);
  /* a non-finite row that is not read is fine */
  table[5 * D + 2] = NAN;
  uint32_t one = 3;
  CHECK_STATUS(ss_embedding(table, V, D, &one, 1, y), SS_OK);
}

typedef struct emb_ctx {
  size_t vocab, d, count;
  const uint32_t *tok;
  const float *dy;
} emb_ctx;

/* sum_t dy[t] . table[tok[t]] in float64, v = the table. */
static double emb_loss(const double *v, size_t nv, const void *ctx) {
  (void)nv;
  const emb_ctx *c = ctx;
  double L = 0.0;
  for (size_t t = 0; t < c->count; t++)
    for (size_t j = 0; j < c->d; j++) L += c->dy[t * c->d + j] * v[c->tok[t] * c->d + j];
  return L;
}

TEST(embedding_backward_matches_finite_differences) {
  static const size_t shapes[][3] = {{1, 1, 1}, {5, 3, 9}, {7, 8, 30}, {13, 17, 40}, {4, 33, 100}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    const size_t V = shapes[s][0], D = shapes[s][1], T = shapes[s][2];
    float *table = ss_test_alloc(V * D * 4), *dy = ss_test_alloc(T * D * 4),
          *dt = ss_test_alloc(V * D * 4), *dt0 = ss_test_alloc(V * D * 4);
    uint32_t *tok = ss_test_alloc(T * 4);
    double *v = ss_test_alloc(V * D * 8);
    st_fill(table, V * D, 10 + s, -1, 1);
    st_fill(dy, T * D, 20 + s, -1, 1);
    fill_tokens(tok, T, V, 30 + s);
    mt_widen(table, V * D, v);
    const emb_ctx c = {V, D, T, tok, dy};
    double S = 0.0; /* the loss's sum of |terms|: the differences' rounding is 2^-50 S / h */
    for (size_t t = 0; t < T; t++)
      for (size_t j = 0; j < D; j++) S += fabs((double)dy[t * D + j] * table[tok[t] * D + j]);
    FOR_EACH_IMPL(impl) {
      st_poison(dt, V * D); /* zeroed by the call, not accumulated into */
      CHECK_STATUS(ss_embedding_backward(impl, dy, tok, T, V, D, dt), SS_OK);
      if (impl == SS_IMPL_SCALAR) memcpy(dt0, dt, V * D * 4);
      else CHECK(memcmp(dt, dt0, V * D * 4) == 0, "SIMD and scalar scatter-adds differ");
      for (size_t k = 0; k < V; k++)
        for (size_t j = 0; j < D; j++) {
          double cnt = 0.0, sabs = 0.0;
          for (size_t t = 0; t < T; t++)
            if (tok[t] == k) cnt += 1.0, sabs += fabs(dy[t * D + j]);
          const double fd = fd_central64(emb_loss, &c, v, V * D, k * D + j, 0.25);
          const double tol = (cnt > 1 ? cnt - 1 : 0) * MT_U * sabs + 0x1p-50 * S / 0.25;
          CHECK(fabs(dt[k * D + j] - fd) <= tol, "%s %zu/%zu/%zu dtable[%zu,%zu]=%.9g fd %.12g",
                ss_impl_name(impl), V, D, T, k, j, dt[k * D + j], fd);
          if (cnt == 0) CHECK(dt[k * D + j] == 0.0f, "an undrawn row is not zero");
        }
    }
  }
}

TEST(embedding_bad_inputs) {
  enum { V = 4, D = 5, T = 3 };
  float table[V * D], dy[T * D], y[T * D], dt[V * D];
  uint32_t tok[T] = {0, 3, 1};
  st_fill(table, V * D, 1, -1, 1);
  st_fill(dy, T * D, 2, -1, 1);
  st_poison(y, T * D);
  st_poison(dt, V * D);
  CHECK_STATUS(ss_embedding(NULL, V, D, tok, T, y), SS_ERR_NULL);
  CHECK_STATUS(ss_embedding(table, V, D, NULL, T, y), SS_ERR_NULL);
  CHECK_STATUS(ss_embedding(table, V, D, tok, T, NULL), SS_ERR_NULL);
  CHECK_STATUS(ss_embedding_backward(SS_IMPL_SCALAR, NULL, tok, T, V, D, dt), SS_ERR_NULL);
  CHECK_STATUS(ss_embedding_backward(SS_IMPL_SCALAR, dy, NULL, T, V, D, dt), SS_ERR_NULL);
  CHECK_STATUS(ss_embedding_backward(SS_IMPL_SCALAR, dy, tok, T, V, D, NULL), SS_ERR_NULL);
  CHECK_STATUS(ss_embedding_backward(SS_IMPL_COUNT, dy, tok, T, V, D, dt), SS_ERR_UNSUPPORTED);
  CHECK_STATUS(ss_embedding(table, 0, D, tok, T, y), SS_ERR_EMPTY);
  CHECK_STATUS(ss_embedding(table, V, 0, tok, T, y), SS_ERR_EMPTY);
  CHECK_STATUS(ss_embedding(table, V, D, tok, 0, y), SS_ERR_EMPTY);
  CHECK_STATUS(ss_embedding(table, (size_t)1 << 20, 1 << 7, tok, T, y), SS_ERR_TOO_LARGE);
  CHECK_STATUS(ss_embedding(table, V, 1 << 7, tok, (size_t)1 << 20, y), SS_ERR_TOO_LARGE);
  tok[1] = V; /* one past the table */
  CHECK_STATUS(ss_embedding(table, V, D, tok, T, y), SS_ERR_DOMAIN);
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_embedding_backward(impl, dy, tok, T, V, D, dt), SS_ERR_DOMAIN);
    CHECK_STATUS(ss_embedding_backward(impl, dy, tok, 0, V, D, dt), SS_ERR_EMPTY);
    CHECK_STATUS(ss_embedding_backward(impl, dy, tok, T, V, (size_t)SS_MAX_N + 1, dt), SS_ERR_TOO_LARGE);
  }
  tok[1] = 3;
  table[3 * D + 1] = NAN;
  CHECK_STATUS(ss_embedding(table, V, D, tok, T, y), SS_ERR_NAN);
  table[3 * D + 1] = INFINITY;
  CHECK_STATUS(ss_embedding(table, V, D, tok, T, y), SS_ERR_NONFINITE);
  FOR_EACH_IMPL(impl) {
    dy[4] = NAN;
    CHECK_STATUS(ss_embedding_backward(impl, dy, tok, T, V, D, dt), SS_ERR_NAN);
    dy[4] = -INFINITY;
    CHECK_STATUS(ss_embedding_backward(impl, dy, tok, T, V, D, dt), SS_ERR_NONFINITE);
    dy[4] = 0.5f;
  }
  CHECK(st_untouched(y, T * D) && st_untouched(dt, V * D), "an output was written");
  float p[6];
  st_poison(p, 6);
  CHECK_STATUS(ss_positions_sinusoidal(2, 3, p), SS_ERR_LENGTH);
  CHECK_STATUS(ss_positions_sinusoidal(0, 2, p), SS_ERR_EMPTY);
  CHECK_STATUS(ss_positions_sinusoidal(2, 0, p), SS_ERR_EMPTY);
  CHECK_STATUS(ss_positions_sinusoidal((size_t)1 << 25, 4, p), SS_ERR_TOO_LARGE);
  CHECK_STATUS(ss_positions_sinusoidal(2, 2, NULL), SS_ERR_NULL);
  CHECK(st_untouched(p, 6), "positions written on error");
}

/* A float sum beyond FLT_MAX (the same token twice with dy = 3e38) is
   SS_ERR_DOMAIN in both impls, never Inf with SS_OK. */
TEST(embedding_backward_overflow_is_domain_error) {
  float dy[4] = {3e38f, 1.0f, 3e38f, 1.0f}, dt[6];
  uint32_t tok[2] = {1, 1}, tok2[2] = {0, 2};
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_embedding_backward(impl, dy, tok, 2, 3, 2, dt), SS_ERR_DOMAIN);
    CHECK_STATUS(ss_embedding_backward(impl, dy, tok2, 2, 3, 2, dt), SS_OK);
    CHECK(dt[0] == 3e38f && dt[4] == 3e38f && dt[2] == 0.0f, "%s: wrong scatter", ss_impl_name(impl));
  }
}

TEST(positions_sinusoidal_match_float64) {
  static const size_t shapes[][2] = {{1, 2}, {5, 4}, {64, 64}, {4096, 6}, {17, 130}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
    const size_t n = shapes[s][0], d = shapes[s][1];
    float *y = ss_test_alloc(n * d * 4);
    CHECK_STATUS(ss_positions_sinusoidal(n, d, y), SS_OK);
    for (size_t p = 0; p < n; p++)
      for (size_t i = 0; i < d / 2; i++) {
        const double a = (double)p / pow(10000.0, (double)(2 * i) / (double)d);
        CHECK(fabs(y[p * d + 2 * i] - sin(a)) <= MT_U * fabs(sin(a)) + 1e-12 &&
                  fabs(y[p * d + 2 * i + 1] - cos(a)) <= MT_U * fabs(cos(a)) + 1e-12,
              "n=%zu d=%zu p=%zu i=%zu: %.9g %.9g vs %.12g %.12g", n, d, p, i, y[p * d + 2 * i],
              y[p * d + 2 * i + 1], sin(a), cos(a));
      }
    for (size_t j = 0; j < d; j++) CHECK(y[j] == (float)(j % 2), "position 0: y[%zu] = %g", j, y[j]);
  }
}
