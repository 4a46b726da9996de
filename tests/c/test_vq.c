/*
 * Vector quantization (core/src/quant/vq.c):
 *   - k-means never increases its loss: over dims 1, 2, 3, 8 and K 1..32 the
 *     loss history is non-increasing (slack 1e-6 relative, for float
 *     distance ties in the assignment), it equals the float64 MSE of the
 *     returned codes, the returned codes are the nearest codewords (float64
 *     distance within 1e-5 relative of the best) and every non-empty
 *     codeword is the float64 mean of its cluster within 1e-6 relative;
 *   - four well-separated blobs (centres 10 apart, sd 0.1) are found: with
 *     K = 4 each codeword is within 0.05 of a different true centre;
 *   - scalar and SIMD training and assignment give bit-identical codebooks
 *     and codes (also when N is not a multiple of 4);
 *   - the straight-through backward: dcodebook equals the central finite
 *     difference of sum_i |x_i - e_c(i)|^2 (codes fixed) and dx - g equals
 *     beta times its gradient in x, within 1e-3 relative;
 *   - the registry kernel `vq`: y is the trained codebook read through the
 *     codes, every value of a vector carries its vector's code, and
 *     quantizing y again gives y (idempotent: y has at most K vectors);
 *   - VQ-Logits: a codebook trained on V = 512 clustered output embeddings
 *     gives, through ss_vq_softmax, the softmax of the tied logits (2e-6
 *     relative vs float64), and the KL from the full-embedding softmax
 *     falls as K grows 4 -> 16 -> 64;
 *   - bad shapes and parameters get their status.
 */
#include <string.h>

#include "fd.h"
#include "harness.h"

static const ss_kernel_info *VQ(void) { return ss_kernel_find("vq", SS_FAMILY_QUANTIZER); }

/* nvec vectors around `blobs` centres (or uniform when blobs == 0). */
static void data(float *x, size_t nvec, size_t dim, int blobs, double spread, uint64_t seed) {
  ss_rng r = {seed};
  for (size_t i = 0; i < nvec; i++) {
    const int b = blobs ? (int)(ss_rng_unif(&r) * blobs) : 0;
    for (size_t t = 0; t < dim; t++)
      x[i * dim + t] = blobs ? (float)(10.0 * ((b + t) % blobs) + spread * ss_rng_normal(&r))
                             : (float)(4.0 * ss_rng_unif(&r) - 2.0);
  }
}

static double d2_64(const float *a, const float *b, size_t dim) {
  double s = 0;
  for (size_t t = 0; t < dim; t++) s += ((double)a[t] - b[t]) * ((double)a[t] - b[t]);
  return s;
}

TEST(kmeans_loss_never_increases) {
  enum { N = 300, IT = 30 };
  static const size_t dims[] = {1, 2, 3, 8}, ks[] = {1, 2, 5, 16, 32};
  float *x = ss_test_alloc(N * 8 * sizeof *x), *scr = ss_test_alloc(N * sizeof *scr);
  float cb[32 * 8];
  int32_t codes[N];
  double loss[IT + 1];
  for (size_t di = 0; di < 4; di++)
    for (size_t ki = 0; ki < 5; ki++) {
      const size_t dim = dims[di], k = ks[ki];
      data(x, N, dim, di % 2 ? 5 : 0, 0.7, 11 + di);
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_vq_train(impl, x, N, dim, k, IT, 7, cb, codes, loss, scr), SS_OK);
        for (int t = 1; t <= IT; t++)
          CHECK(loss[t] <= loss[t - 1] * (1 + 1e-6), "dim %zu K %zu: loss rose %g -> %g at %d",
                dim, k, loss[t - 1], loss[t], t);
        double mse = 0;
        for (size_t i = 0; i < N; i++) {
          const double got = d2_64(x + i * dim, cb + (size_t)codes[i] * dim, dim);
          double best = got;
          for (size_t j = 0; j < k; j++) best = fmin(best, d2_64(x + i * dim, cb + j * dim, dim));
          CHECK(got <= best * (1 + 1e-5) + 1e-12, "dim %zu K %zu: vector %zu not nearest", dim, k, i);
          mse += got;
        }
        mse /= (double)(N * dim);
        CHECK(fabs(mse - loss[IT]) <= 1e-9 * mse + 1e-15, "loss %g vs recomputed %g", loss[IT], mse);
        for (size_t j = 0; j < k; j++)
          for (size_t t = 0; t < dim; t++) {
            double s = 0;
            size_t cnt = 0;
            for (size_t i = 0; i < N; i++)
              if ((size_t)codes[i] == j) s += x[i * dim + t], cnt++;
            if (!cnt) continue;
            const double m = s / (double)cnt;
            CHECK(fabs(cb[j * dim + t] - m) <= 1e-6 * fmax(1, fabs(m)),
                  "dim %zu K %zu: codeword %zu is %g, cluster mean %g", dim, k, j, cb[j * dim + t], m);
          }
      }
    }
  ss_test_free(x);
  ss_test_free(scr);
}

TEST(kmeans_finds_separated_blobs) {
  enum { N = 400, DIM = 2, K = 4 };
  float x[N * DIM], scr[N], cb[K * DIM];
  int32_t codes[N];
  data(x, N, DIM, K, 0.1, 5);
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_vq_train(impl, x, N, DIM, K, 50, 3, cb, codes, NULL, scr), SS_OK);
    int seen = 0;
    for (int j = 0; j < K; j++) {
      int hit = -1;
      for (int b = 0; b < K; b++) {
        const float centre[DIM] = {(float)(10.0 * (b % K)), (float)(10.0 * ((b + 1) % K))};
        if (d2_64(cb + j * DIM, centre, DIM) < 0.05 * 0.05) hit = b;
      }
      CHECK(hit >= 0, "codeword %d (%g, %g) is near no blob centre", j, cb[j * DIM], cb[j * DIM + 1]);
      CHECK(!(seen & (1 << hit)), "two codewords on blob %d", hit);
      seen |= 1 << hit;
    }
  }
}

TEST(vq_scalar_and_simd_bit_identical) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  static const size_t dims[] = {1, 3, 4, 17};
  enum { N = 203, K = 13 };
  float *x = ss_test_alloc(N * 17 * sizeof *x), scr[N];
  float cb[2][K * 17], y[2][N * 17];
  int32_t codes[2][N];
  double loss[2][21];
  for (size_t di = 0; di < 4; di++) {
    const size_t dim = dims[di];
    data(x, N, dim, 3, 1.5, 40 + di);
    for (int i = 0; i < 2; i++)
      CHECK_STATUS(ss_vq_train(i ? SS_IMPL_SIMD : SS_IMPL_SCALAR, x, N, dim, K, 20, 9, cb[i],
                               codes[i], loss[i], scr), SS_OK);
    CHECK(!memcmp(cb[0], cb[1], K * dim * sizeof(float)), "dim %zu: codebooks differ", dim);
    CHECK(!memcmp(codes[0], codes[1], sizeof codes[0]), "dim %zu: codes differ", dim);
    CHECK(!memcmp(loss[0], loss[1], sizeof loss[0]), "dim %zu: loss histories differ", dim);
    /* Assignment against a codebook that is not the data's own. */
    data(cb[0], K, dim, 0, 0, 77 + di);
    for (int i = 0; i < 2; i++)
      CHECK_STATUS(ss_vq_assign(i ? SS_IMPL_SIMD : SS_IMPL_SCALAR, x, N, dim, cb[0], K, codes[i],
                                y[i]), SS_OK);
    CHECK(!memcmp(codes[0], codes[1], sizeof codes[0]), "dim %zu: assignments differ", dim);
    CHECK(!memcmp(y[0], y[1], N * dim * sizeof(float)), "dim %zu: y differ", dim);
  }
  ss_test_free(x);
}

/* F(x, E) = sum_i |x_i - e_c(i)|^2 for fixed codes, in float64. */
static double commit(const float *x, const float *cb, const int32_t *codes, size_t nvec, size_t dim) {
  double s = 0;
  for (size_t i = 0; i < nvec; i++) s += d2_64(x + i * dim, cb + (size_t)codes[i] * dim, dim);
  return s;
}

/* commit() of the arrays in ctx (the one differenced is moved in place). */
typedef struct {
  const float *x, *cb;
  const int32_t *codes;
  size_t nvec, dim;
} commit_ctx;
static double commit_of(const float *moved, size_t len, const void *ctx) {
  (void)moved, (void)len;
  const commit_ctx *c = ctx;
  return commit(c->x, c->cb, c->codes, c->nvec, c->dim);
}

TEST(vq_straight_through_gradient_matches_finite_differences) {
  enum { N = 24, DIM = 3, K = 5 };
  float x[N * DIM], cb[K * DIM], g[N * DIM], dx[N * DIM], dcb[K * DIM], scr[N];
  int32_t codes[N];
  const double beta = 0.25, h = 1e-2;
  data(x, N, DIM, 0, 0, 21);
  data(g, N, DIM, 0, 0, 22);
  CHECK_STATUS(ss_vq_train(SS_IMPL_SCALAR, x, N, DIM, K, 3, 1, cb, codes, NULL, scr), SS_OK);
  CHECK_STATUS(ss_vq_backward(x, N, DIM, cb, K, codes, g, beta, dx, dcb), SS_OK);
  const commit_ctx c = {x, cb, codes, N, DIM};
  for (size_t j = 0; j < K * DIM; j++) {
    const double fd = fd_central32(commit_of, &c, cb, K * DIM, j, h); /* cb is c.cb */
    CHECK(fabs(dcb[j] - fd) <= 1e-3 * fmax(1, fabs(fd)), "dcodebook[%zu] %g vs fd %g", j, dcb[j], fd);
  }
  for (size_t j = 0; j < N * DIM; j++) {
    const double fd = beta * fd_central32(commit_of, &c, x, N * DIM, j, h); /* x is c.x */
    CHECK(fabs((dx[j] - g[j]) - fd) <= 1e-3 * fmax(1, fabs(fd)), "dx[%zu] - g %g vs beta fd %g", j,
          dx[j] - g[j], fd);
  }
}

TEST(vq_registry_kernel_reads_the_codebook_and_is_idempotent) {
  enum { N = 240, DIM = 2, K = 6 };
  const ss_kernel_info *k = VQ();
  CHECK(k, "vq not registered");
  float x[N], y[N], y2[N], cb[K * DIM], scr[N / DIM];
  int32_t c[N], c2[N], vc[N / DIM];
  data(x, N / DIM, DIM, 4, 0.5, 31);
  const double params[4] = {K, DIM, 20, 5};
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_quantize(k, impl, x, N, params, 4, c, y), SS_OK);
    CHECK_STATUS(ss_vq_train(impl, x, N / DIM, DIM, K, 20, 5, cb, vc, NULL, scr), SS_OK);
    for (size_t i = 0; i < N; i++) {
      CHECK(c[i] == vc[i / DIM], "value %zu: code %d, vector code %d", i, c[i], vc[i / DIM]);
      CHECK(y[i] == cb[(size_t)vc[i / DIM] * DIM + i % DIM], "value %zu: y is not its codeword", i);
    }
    CHECK_STATUS(ss_quantize(k, impl, y, N, params, 4, c2, y2), SS_OK);
    CHECK(!memcmp(y, y2, sizeof y), "quantizing y again moved it");
  }
}

TEST(vq_logits_codebook_output_layer) {
  enum { V = 512, D = 8, CLUSTERS = 64 };
  float *w = ss_test_alloc(V * D * sizeof *w), scr[V], y[V], cb[64 * D];
  int32_t codes[V];
  uint32_t map[V];
  float h[D], z[64];
  ss_rng r = {99};
  /* Output embeddings: 64 semantic clusters plus noise; a hidden state h. */
  float centre[CLUSTERS][D];
  for (int c = 0; c < CLUSTERS; c++)
    for (int t = 0; t < D; t++) centre[c][t] = (float)ss_rng_normal(&r);
  for (int v = 0; v < V; v++)
    for (int t = 0; t < D; t++) w[v * D + t] = centre[v % CLUSTERS][t] + (float)(0.05 * ss_rng_normal(&r));
  for (int t = 0; t < D; t++) h[t] = (float)(1.5 * ss_rng_normal(&r));
  double full[V], fmax_ = -INFINITY, fs = 0;
  for (int v = 0; v < V; v++) {
    full[v] = 0;
    for (int t = 0; t < D; t++) full[v] += (double)h[t] * w[v * D + t];
    fmax_ = fmax(fmax_, full[v]);
  }
  for (int v = 0; v < V; v++) fs += exp(full[v] - fmax_);
  for (int v = 0; v < V; v++) full[v] = exp(full[v] - fmax_) / fs;
  double prev_kl = INFINITY;
  static const size_t ks[] = {4, 16, 64};
  for (int ki = 0; ki < 3; ki++) {
    const size_t K = ks[ki];
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_vq_train(impl, w, V, D, K, 50, 2, cb, codes, NULL, scr), SS_OK);
      for (size_t j = 0; j < K; j++) {
        z[j] = 0;
        for (int t = 0; t < D; t++) z[j] += h[t] * cb[j * D + t];
      }
      for (int v = 0; v < V; v++) map[v] = (uint32_t)codes[v];
      CHECK_STATUS(ss_vq_softmax(impl, z, K, map, V, y), SS_OK);
      double tied_max = -INFINITY, ts = 0, kl = 0;
      for (int v = 0; v < V; v++) tied_max = fmax(tied_max, z[map[v]]);
      for (int v = 0; v < V; v++) ts += exp((double)z[map[v]] - tied_max);
      for (int v = 0; v < V; v++) {
        const double p = exp((double)z[map[v]] - tied_max) / ts;
        CHECK(fabs(y[v] - p) <= 2e-6 * p + 1e-30, "K %zu: y[%d] = %g, tied softmax %g", K, v, y[v], p);
        kl += full[v] * log(full[v] / fmax(y[v], 1e-38));
      }
      if (impl == SS_IMPL_SCALAR) {
        CHECK(kl < prev_kl, "KL did not fall with K: %g at K %zu after %g", kl, K, prev_kl);
        prev_kl = kl;
      }
    }
  }
  CHECK(prev_kl < 0.05, "K = 64 (the true clusters): KL %g", prev_kl);
  ss_test_free(w);
}

TEST(vq_bad_input_gets_its_status) {
  const ss_kernel_info *k = VQ();
  float x[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, y[12], cb[12], scr[12], g[12] = {0};
  int32_t c[12];
  double p[4] = {3, 2, 5, 0};
  CHECK_STATUS(ss_quantize(k, SS_IMPL_SCALAR, x, 12, p, 4, NULL, y), SS_ERR_NULL);
  CHECK_STATUS(ss_quantize(k, SS_IMPL_SCALAR, x, 11, p, 4, c, y), SS_ERR_LENGTH); /* dim 2 !| 11 */
  p[0] = 7;
  CHECK_STATUS(ss_quantize(k, SS_IMPL_SCALAR, x, 12, p, 4, c, y), SS_ERR_LENGTH); /* K > 6 vectors */
  p[0] = 0;
  CHECK_STATUS(ss_quantize(k, SS_IMPL_SCALAR, x, 12, p, 4, c, y), SS_ERR_PARAM_RANGE);
  p[0] = 3, p[1] = 17;
  CHECK_STATUS(ss_quantize(k, SS_IMPL_SCALAR, x, 12, p, 4, c, y), SS_ERR_PARAM_RANGE);
  p[1] = 2;
  x[3] = NAN;
  CHECK_STATUS(ss_quantize(k, SS_IMPL_SCALAR, x, 12, p, 4, c, y), SS_ERR_NAN);
  CHECK_STATUS(ss_vq_train(SS_IMPL_SCALAR, x, 6, 2, 3, 5, 0, cb, c, NULL, scr), SS_ERR_NAN);
  x[3] = 4;
  CHECK_STATUS(ss_vq_train(SS_IMPL_SCALAR, x, 6, 0, 3, 5, 0, cb, c, NULL, scr), SS_ERR_EMPTY);
  CHECK_STATUS(ss_vq_train(SS_IMPL_SCALAR, x, 6, 2, 0, 5, 0, cb, c, NULL, scr), SS_ERR_EMPTY);
  CHECK_STATUS(ss_vq_train(SS_IMPL_SCALAR, x, 6, 2, 7, 5, 0, cb, c, NULL, scr), SS_ERR_LENGTH);
  CHECK_STATUS(ss_vq_train(SS_IMPL_SCALAR, x, 6, SS_VQ_MAX_DIM + 1, 1, 5, 0, cb, c, NULL, scr),
               SS_ERR_TOO_LARGE);
  CHECK_STATUS(ss_vq_train(SS_IMPL_SCALAR, x, 6, 2, 3, 5, 0, cb, c, NULL, NULL), SS_ERR_NULL);
  CHECK_STATUS(ss_vq_train(SS_IMPL_SCALAR, x, 6, 2, 3, SS_VQ_MAX_ITERS + 1, 0, cb, c, NULL, scr),
               SS_ERR_PARAM_RANGE);
  CHECK_STATUS(ss_vq_train(SS_IMPL_SCALAR, x, 6, 2, 3, 5, 0, cb, c, NULL, scr), SS_OK);
  cb[1] = INFINITY;
  CHECK_STATUS(ss_vq_assign(SS_IMPL_SCALAR, x, 6, 2, cb, 3, c, y), SS_ERR_NONFINITE);
  cb[1] = 0;
  CHECK_STATUS(ss_vq_backward(x, 6, 2, cb, 3, c, g, -1.0, y, NULL), SS_ERR_PARAM_RANGE);
  c[2] = 3;
  CHECK_STATUS(ss_vq_backward(x, 6, 2, cb, 3, c, g, 0.25, y, NULL), SS_ERR_DOMAIN);
}
