/*
 * vq_softmax: p_v = e^{z_{c(v)}} / sum_k count_k e^{z_k}, the softmax of the
 * tied logits z_{c(v)} computed from the K codebook exps.
 *
 * Stated bounds: rel err <= 2e-6 vs the float64 softmax of the tied vector
 * (outputs >= 1e-30), <= 8 ulp from the library's softmax run on the
 * explicit tied vector (same impl), bitwise equal outputs for equal codes;
 * SIMD vs scalar <= 8 ulp. Measured: 2.1e-7 rel, 2 ulp from the tied softmax.
 */
#include <string.h>

#include "harness.h"
#include "reference.h"
#include "softmax_testing.h"
#include "variants_testing.h"

static const ss_kernel_info *K(void) { return ss_kernel_find("vq_softmax", SS_FAMILY_NORMALIZER); }
static const ss_kernel_info *KS(void) { return ss_kernel_find("softmax", SS_FAMILY_NORMALIZER); }

/* The registry form's code map, as documented in vq_softmax.c (the spec). */
static uint32_t h32(uint32_t u) {
  u ^= u >> 16;
  u *= 0x7feb352du;
  u ^= u >> 15;
  u *= 0x846ca68bu;
  u ^= u >> 16;
  return u;
}
static size_t code_of(size_t v, size_t k, uint32_t seed) {
  return v < k ? v : (size_t)(((uint64_t)h32(h32(seed) ^ (uint32_t)v) * k) >> 32);
}

/* The tied logits of the registry form: x_{c(v)}, -Inf for masked tokens. */
static void tied_registry(const float *x, size_t n, size_t k, uint32_t seed, float *t) {
  for (size_t v = 0; v < n; v++) t[v] = x[v] == -INFINITY ? -INFINITY : x[code_of(v, k, seed)];
}

/* Outputs vs the tied vector: float64 (2e-6 rel), library softmax (8 ulp),
   and bitwise equality within each code. */
static bool check_tied(const float *y, const float *tied, const uint32_t *codes, size_t v,
                       ss_impl impl, char *why, size_t wl) {
  double *ref = ss_test_alloc(v * 8);
  float *ys = ss_test_alloc(v * 4);
  ref_softmax(tied, v, 1.0, ref);
  if (ss_normalize(KS(), impl, tied, v, NULL, 0, ys) != SS_OK) return snprintf(why, wl, "softmax"), false;
  size_t at, first[128];
  for (size_t c = 0; c < 128; c++) first[c] = SIZE_MAX;
  const double e = ref_max_rel_err(y, ref, v, 1e-30, &at);
  if (!(e <= 2e-6)) return snprintf(why, wl, "rel err %.3g at %zu", e, at), false;
  for (size_t i = 0; i < v; i++) {
    const bool close = ref[i] >= 1e-30 ? ss_ulp_diff(y[i], ys[i]) <= 8 : fabsf(y[i] - ys[i]) <= 1e-30f;
    if (!close) return snprintf(why, wl, "y[%zu] = %a, softmax of tied %a", i, y[i], ys[i]), false;
    if (!codes || codes[i] >= 128) continue;
    if (first[codes[i]] == SIZE_MAX) first[codes[i]] = i;
    if (memcmp(&y[i], &y[first[codes[i]]], 4) != 0)
      return snprintf(why, wl, "tied outputs differ at %zu and %zu", i, first[codes[i]]), false;
  }
  return true;
}

TEST(vq_softmax_descriptor) {
  const ss_kernel_info *k = K();
  CHECK(k && k->nparams == 2 && k->has_backward && k->output == SS_OUTPUT_PROBS &&
            strstr(k->paper, "Shao") && strstr(k->paper, "2025"),
        "descriptor");
  CHECK(strcmp(k->params[0].name, "codebook") == 0 && k->params[0].type == SS_PARAM_INT &&
            k->params[0].min == 1.0 && k->params[0].max == (double)SS_MAX_N &&
            k->params[0].def == 4.0,
        "codebook param");
  CHECK(strcmp(k->params[1].name, "seed") == 0 && k->params[1].type == SS_PARAM_INT &&
            k->params[1].min == 0.0 && k->params[1].max == 4294967295.0 && k->params[1].def == 0.0,
        "seed param");
}

/* Direct API = softmax of the tied vector, over (k, v) on both sides of the
   v < 2k switch, with unused codes (count 0) -- one of them the largest
   logit by far, which must not make the used exps underflow. */
TEST(vq_softmax_direct_equals_tied_softmax) {
  static const size_t ks[] = {1, 2, 3, 5, 16, 17, 100};
  static const size_t vs[] = {1, 2, 3, 7, 31, 64, 65, 1000, 4099};
  char why[160];
  for (size_t a = 0; a < sizeof ks / sizeof ks[0]; a++) {
    for (size_t b = 0; b < sizeof vs / sizeof vs[0]; b++) {
      const size_t k = ks[a], v = vs[b];
      float *z = ss_test_alloc(k * 4), *y = ss_test_alloc(v * 4), *tied = ss_test_alloc(v * 4);
      uint32_t *codes = ss_test_alloc(v * 4);
      st_fill(z, k, 7 * k + v, -20, 20);
      ss_rng r = {k * 1000 + v};
      /* codes drawn from the lower half when k > 2, so the upper half is unused */
      const size_t span = k > 2 ? k / 2 : k;
      for (size_t i = 0; i < v; i++) codes[i] = (uint32_t)(ss_rng_u64(&r) % span);
      if (k > 2) z[k - 1] = 1e3f; /* unused and far above every used code */
      for (size_t i = 0; i < v; i++) tied[i] = z[codes[i]];
      FOR_EACH_IMPL(impl) {
        CHECK_STATUS(ss_vq_softmax(impl, z, k, codes, v, y), SS_OK);
        CHECK(check_tied(y, tied, codes, v, impl, why, sizeof why), "%s k=%zu v=%zu: %s",
              ss_impl_name(impl), k, v, why);
      }
    }
  }
}

/* A -Inf code is masked: its entries get exactly 0, the others renormalize
   (= softmax of the tied vector holding those -Inf). */
TEST(vq_softmax_masked_codes) {
  enum { KK = 6, V = 500 };
  float z[KK], y[V], tied[V];
  uint32_t codes[V];
  char why[160];
  st_fill(z, KK, 3, -5, 5);
  z[2] = -INFINITY;
  for (size_t i = 0; i < V; i++) codes[i] = (uint32_t)((i * 7) % KK), tied[i] = z[codes[i]];
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_vq_softmax(impl, z, KK, codes, V, y), SS_OK);
    for (size_t i = 0; i < V; i++)
      if (codes[i] == 2) CHECK(y[i] == 0.0f && !signbit(y[i]), "%s: masked y[%zu]=%g", ss_impl_name(impl), i, y[i]);
    CHECK(check_tied(y, tied, codes, V, impl, why, sizeof why), "%s: %s", ss_impl_name(impl), why);
  }
}

TEST(vq_softmax_direct_errors) {
  enum { KK = 5, V = 40 };
  float z[KK], y[V];
  uint32_t codes[V];
  st_fill(z, KK, 4, -3, 3);
  for (size_t i = 0; i < V; i++) codes[i] = (uint32_t)(i % 3); /* codes 3, 4 unused */
  FOR_EACH_IMPL(impl) {
    st_poison(y, V);
    CHECK_STATUS(ss_vq_softmax(impl, NULL, KK, codes, V, y), SS_ERR_NULL);
    CHECK_STATUS(ss_vq_softmax(impl, z, KK, NULL, V, y), SS_ERR_NULL);
    CHECK_STATUS(ss_vq_softmax(impl, z, KK, codes, V, NULL), SS_ERR_NULL);
    CHECK_STATUS(ss_vq_softmax(impl, z, 0, codes, V, y), SS_ERR_EMPTY);
    CHECK_STATUS(ss_vq_softmax(impl, z, KK, codes, 0, y), SS_ERR_EMPTY);
    CHECK_STATUS(ss_vq_softmax(impl, z, SS_MAX_N + 1, codes, V, y), SS_ERR_TOO_LARGE);
    CHECK_STATUS(ss_vq_softmax(impl, z, KK, codes, SS_MAX_N + 1, y), SS_ERR_TOO_LARGE);
    codes[17] = KK; /* out of range */
    CHECK_STATUS(ss_vq_softmax(impl, z, KK, codes, V, y), SS_ERR_DOMAIN);
    codes[17] = 1;
    z[4] = NAN; /* an unused code is still validated */
    CHECK_STATUS(ss_vq_softmax(impl, z, KK, codes, V, y), SS_ERR_NAN);
    z[4] = INFINITY;
    CHECK_STATUS(ss_vq_softmax(impl, z, KK, codes, V, y), SS_ERR_POS_INF);
    z[4] = 1.0f;
    z[0] = z[1] = z[2] = -INFINITY; /* every used code masked, an unused one finite */
    CHECK_STATUS(ss_vq_softmax(impl, z, KK, codes, V, y), SS_ERR_ALL_MASKED);
    CHECK(st_untouched(y, V), "%s: y written on an error", ss_impl_name(impl));
    st_fill(z, KK, 4, -3, 3);
  }
  CHECK_STATUS(ss_vq_softmax(SS_IMPL_COUNT, z, KK, codes, V, y), SS_ERR_UNSUPPORTED);
  CHECK_STATUS(ss_vq_softmax((ss_impl)-1, z, KK, codes, V, y), SS_ERR_UNSUPPORTED);
  if (!ss_impl_available(SS_IMPL_SIMD))
    CHECK_STATUS(ss_vq_softmax(SS_IMPL_SIMD, z, KK, codes, V, y), SS_ERR_UNSUPPORTED);
  CHECK(st_untouched(y, V), "y written on an unsupported impl");
}

TEST(vq_softmax_simd_vs_scalar) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  static const size_t ks[] = {1, 3, 8, 33}, vs[] = {1, 5, 17, 66, 67, 2000};
  for (size_t a = 0; a < 4; a++)
    for (size_t b = 0; b < 6; b++) {
      const size_t k = ks[a], v = vs[b];
      float z[33], *ya = ss_test_alloc(v * 4), *yb = ss_test_alloc(v * 4);
      uint32_t *codes = ss_test_alloc(v * 4);
      st_fill(z, k, k + 100 * v, -30, 30);
      for (size_t i = 0; i < v; i++) codes[i] = (uint32_t)((i * 2654435761u) % k);
      CHECK_STATUS(ss_vq_softmax(SS_IMPL_SCALAR, z, k, codes, v, ya), SS_OK);
      CHECK_STATUS(ss_vq_softmax(SS_IMPL_SIMD, z, k, codes, v, yb), SS_OK);
      for (size_t i = 0; i < v; i++)
        CHECK(ya[i] >= 1e-30f ? ss_ulp_diff(ya[i], yb[i]) <= 8 : fabsf(ya[i] - yb[i]) <= 1e-30f,
              "k=%zu v=%zu i=%zu: %a vs %a", k, v, i, ya[i], yb[i]);
    }
  float x[67];
  st_fill(x, 67, 9, -10, 10);
  for (double kk = 1; kk <= 67; kk += 11) {
    const double p[2] = {kk, 5};
    const uint32_t u = vt_simd_vs_scalar(K(), p, 2, x, 67, 1e-30f);
    CHECK(u <= 8, "registry K=%g: %u ulp", kk, u);
  }
}

/* Registry form: the softmax of x_{c(v)} with the documented hash map;
   the values of x[K..n) are not read (only -Inf there masks the entry). */
TEST(vq_softmax_registry_is_tied_softmax) {
  static const size_t ns[] = {1, 2, 9, 64, 1000};
  static const double kks[] = {1, 2, 4, 7, 64};
  static const double seeds[] = {0, 1, 12345, 4294967295.0};
  char why[160];
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4), *y2 = ss_test_alloc(n * 4),
          *tied = ss_test_alloc(n * 4);
    for (size_t a = 0; a < 5; a++) {
      if (kks[a] > (double)n) continue;
      const size_t k = (size_t)kks[a];
      for (size_t s = 0; s < 4; s++) {
        const double p[2] = {kks[a], seeds[s]};
        vt_fill_masked(x, n, 3 * n + a + s, -15, 15, 0.2);
        for (size_t i = 0; i < k && i + 1 < n; i++)
          if (i % 3 == 1) x[i] = -INFINITY; /* a masked code too */
        x[0] = 0.5f;
        tied_registry(x, n, k, (uint32_t)seeds[s], tied);
        FOR_EACH_IMPL(impl) {
          CHECK_STATUS(ss_normalize(K(), impl, x, n, p, 2, y), SS_OK);
          CHECK(check_tied(y, tied, NULL, n, impl, why, sizeof why), "%s n=%zu K=%zu seed=%g: %s",
                ss_impl_name(impl), n, k, seeds[s], why);
          for (size_t i = k; i < n; i++) /* other finite values beyond K: the same output */
            if (x[i] != -INFINITY) x[i] = -x[i] * 3 + 1;
          CHECK_STATUS(ss_normalize(K(), impl, x, n, p, 2, y2), SS_OK);
          CHECK(memcmp(y, y2, n * 4) == 0, "%s n=%zu: x[K..n) was read", ss_impl_name(impl), n);
        }
      }
    }
  }
}

/* The hash spreads v >= K evenly (each code within 10% of n/K at n = 40000)
   and the seed changes the map. */
TEST(vq_softmax_code_map) {
  enum { N = 40000, KK = 8 };
  size_t cnt[KK] = {0}, same = 0;
  for (size_t v = KK; v < N; v++) {
    cnt[code_of(v, KK, 0)]++;
    same += code_of(v, KK, 0) == code_of(v, KK, 1);
  }
  for (size_t k = 0; k < KK; k++)
    CHECK(fabs((double)cnt[k] - (N - KK) / (double)KK) <= 0.1 * N / KK, "code %zu: %zu", k, cnt[k]);
  CHECK(same < N / 4, "seed 0 and 1 agree on %zu of %d", same, N);
  /* ...and the kernel follows it: equal outputs exactly for equal codes */
  static float x[N], y[N];
  st_fill(x, N, 5, -4, 4);
  const double p[2] = {KK, 0};
  CHECK_STATUS(ss_normalize(K(), ss_impl_default(), x, N, p, 2, y), SS_OK);
  for (size_t v = 0; v < N; v++)
    CHECK(memcmp(&y[v], &y[code_of(v, KK, 0)], 4) == 0, "v=%zu: %a vs code %zu", v, y[v],
          code_of(v, KK, 0));
}

TEST(vq_softmax_k_equal_n_is_softmax) {
  enum { N = 12 };
  float x[N], y[N];
  st_fill(x, N, 6, -2, 2);
  FOR_EACH_IMPL(impl) {
    const double all[2] = {N, 0};
    /* K = n: every entry its own code, plain softmax */
    float ys[N];
    CHECK_STATUS(ss_normalize(K(), impl, x, N, all, 2, y), SS_OK);
    CHECK_STATUS(ss_normalize(KS(), impl, x, N, NULL, 0, ys), SS_OK);
    CHECK(memcmp(y, ys, sizeof y) == 0, "%s: K = n differs from softmax", ss_impl_name(impl));
  }
}

/* -Inf padding appended to a row keeps every other output: the code map of
   v depends on (seed, v) only (scalar: bitwise, the same double sum; SIMD:
   <= 8 ulp, the v < 2K / v >= 2K paths sum differently). */
TEST(vq_softmax_padding) {
  enum { N = 300, PAD = 77 };
  static float x[N + PAD], y[N + PAD], yu[N];
  st_fill(x, N + PAD, 8, -6, 6);
  for (size_t i = N; i < N + PAD; i++) x[i] = -INFINITY;
  static const double kks[] = {3, 100, 160, 300};
  FOR_EACH_IMPL(impl) {
    for (size_t a = 0; a < 4; a++) {
      const double p[2] = {kks[a], 9};
      CHECK_STATUS(ss_normalize(K(), impl, x, N + PAD, p, 2, y), SS_OK);
      CHECK_STATUS(ss_normalize(K(), impl, x, N, p, 2, yu), SS_OK);
      for (size_t i = 0; i < N + PAD; i++) {
        if (i >= N) {
          CHECK(y[i] == 0.0f && !signbit(y[i]), "%s: pad y[%zu] = %g", ss_impl_name(impl), i, y[i]);
          continue;
        }
        CHECK(ss_ulp_diff(y[i], yu[i]) <= (impl == SS_IMPL_SCALAR ? 0u : 8u),
              "%s K=%g i=%zu: %a vs unpadded %a", ss_impl_name(impl), kks[a], i, y[i], yu[i]);
      }
    }
  }
}

/* VJP w.r.t. x[0..K) vs central differences of the float64 model (softmax of
   the tied vector), dx = 0 beyond K: |dx - fd| <= 1e-5 (Y_k (|G_k| + G)) +
   1e-9 G, Y_k = the mass of code k, G_k the sum of g over it. */
static size_t g_k;
static uint32_t g_seed;
static void vq64(const double *x, size_t n, double unused, double *out) {
  (void)unused;
  double *t = ss_test_alloc(n * 8);
  for (size_t v = 0; v < n; v++) t[v] = x[v] == -INFINITY ? -INFINITY : x[code_of(v, g_k, g_seed)];
  st_softmax64(t, n, 1.0, out);
  ss_test_free(t);
}

TEST(vq_softmax_vjp_matches_finite_differences) {
  static const size_t ns[] = {1, 3, 17, 40, 200};
  static const size_t kks[] = {1, 2, 5, 17};
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4), *y = ss_test_alloc(n * 4), *g = ss_test_alloc(n * 4),
          *dx = ss_test_alloc(n * 4);
    double *fd = ss_test_alloc(n * 8), *p = ss_test_alloc(n * 8), *xd = ss_test_alloc(n * 8);
    for (size_t a = 0; a < 4; a++) {
      if (kks[a] > n) continue;
      g_k = kks[a];
      g_seed = (uint32_t)(17 * a);
      vt_fill_masked(x, n, 2 * n + a, -4, 4, 0.15);
      x[0] = 1.0f; /* code 0 unmasked */
      st_fill(g, n, 3 * n + a, -2, 2);
      double G = 0.0;
      for (size_t i = 0; i < n; i++) G += fabs(g[i]), xd[i] = x[i];
      vq64(xd, n, 0, p);
      st_fd_vjp(vq64, x, g, n, 0.0, 1e-5, fd);
      const double cnt = (double)n / (double)g_k;
      FOR_EACH_IMPL(impl) {
        const double par[2] = {(double)g_k, (double)g_seed};
        CHECK_STATUS(ss_normalize(K(), impl, x, n, par, 2, y), SS_OK);
        CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, n, par, 2, dx), SS_OK);
        for (size_t j = 0; j < n; j++) {
          if (j >= g_k) {
            CHECK(dx[j] == 0.0f && fd[j] == 0.0, "%s: dx[%zu] = %g beyond K", ss_impl_name(impl), j, dx[j]);
            continue;
          }
          double mass = 0.0, gk = 0.0;
          for (size_t v = 0; v < n; v++)
            if (x[v] != -INFINITY && code_of(v, g_k, g_seed) == j) mass += p[v], gk += fabs(g[v]);
          const double tol = (4e-6 + 4 * cnt * 0x1p-24) * mass * (gk + G) + 1e-9 * G;
          CHECK(fabs(dx[j] - fd[j]) <= tol, "%s n=%zu K=%zu j=%zu: dx=%.9g fd=%.9g",
                ss_impl_name(impl), n, g_k, j, dx[j], fd[j]);
        }
      }
    }
  }
}

TEST(vq_softmax_size_error_before_all_masked) {
  /* K = 7 > n on an all -Inf row is a size error, not SS_ERR_ALL_MASKED */
  const double p7[3] = {7, 3, 0};
  float x[5] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY, -INFINITY}, y[5];
  FOR_EACH_IMPL(impl) CHECK_STATUS(ss_normalize(K(), impl, x, 5, p7, 2, y), SS_ERR_LENGTH);
}
