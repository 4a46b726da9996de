/*
 * relu_attention: y_i = relu(x_i) / L, L = the number of entries != -Inf
 * (Guo et al. 2024's ReLU attention; the keys a causal query sees).
 *
 * Stated bounds: each output is one correctly rounded float division, so
 * |y_i - ref_i| <= RA_REL |ref_i| against the float64 reference (half an
 * ulp of the exact value, plus the reference's own double rounding) for
 * outputs >= 1e-30 (measured: at most 2^-24 relative, i.e. RA_REL itself up
 * to the 2^-52 slack); SIMD == scalar bit for bit, forward and VJP.
 */
#include <string.h>

#include "forward_sweep.h"
#include "harness.h"
#include "softmax_testing.h"
#include "variants_testing.h"

#define RA_REL (0x1p-24 + 0x1p-52)

static const ss_kernel_info *K(void) {
  return ss_kernel_find("relu_attention", SS_FAMILY_NORMALIZER);
}

/* Float64 model from the definition: relu(x_i) / L, L counted in double. */
static void relu64(const double *x, size_t n, double unused, double *out) {
  (void)unused;
  double len = 0.0;
  for (size_t i = 0; i < n; i++) len += x[i] != -INFINITY;
  for (size_t i = 0; i < n; i++) out[i] = x[i] > 0.0 ? x[i] / len : 0.0;
}

/* x_i = scale (2u - 1) in double (st_fill's float hi - lo overflows at
   3e38), about `frac` of them -Inf (never the last). */
static void fill_scaled(float *x, size_t n, uint64_t seed, double scale, double frac) {
  ss_rng r = {seed};
  for (size_t i = 0; i < n; i++) x[i] = (float)(scale * (2.0 * ss_rng_unif(&r) - 1.0));
  for (size_t i = 0; i + 1 < n; i++)
    if (ss_rng_unif(&r) < frac) x[i] = -INFINITY;
}

TEST(relu_attention_descriptor) {
  const ss_kernel_info *k = K();
  CHECK(k && k->nparams == 0 && k->has_backward && !k->has_param_backward && k->in_place &&
            k->output == SS_OUTPUT_WEIGHTS && k->input == SS_INPUT_LOGITS &&
            k->normalize_param_vjp[SS_IMPL_SCALAR] == NULL && strstr(k->paper, "Guo") &&
            strstr(k->paper, "2410.13835") && strstr(k->paper, "Wortsman") &&
            strstr(k->paper, "2309.08586"),
        "descriptor");
  double dp[1];
  const float x[3] = {1, 2, 3}, y[3] = {0}, g[3] = {1, 1, 1};
  CHECK_STATUS(ss_normalize_param_vjp(k, SS_IMPL_SCALAR, x, y, g, 3, NULL, 0, dp), SS_ERR_NO_BACKWARD);
}

/* x = (2, -1, 0, 0.5, -Inf, 3): L = 5, y = (0.4, 0, 0, 0.1, 0, 0.6). */
TEST(relu_attention_definition) {
  const float x[6] = {2.0f, -1.0f, 0.0f, 0.5f, -INFINITY, 3.0f};
  const double want[6] = {0.4, 0, 0, 0.1, 0, 0.6};
  FOR_EACH_IMPL(impl) {
    float y[6];
    CHECK_STATUS(ss_normalize(K(), impl, x, 6, NULL, 0, y), SS_OK);
    for (size_t i = 0; i < 6; i++)
      CHECK(want[i] == 0.0 ? y[i] == 0.0f && !signbit(y[i]) : fabs(y[i] - want[i]) <= RA_REL * want[i],
            "%s: y[%zu] = %.9g, want %g", ss_impl_name(impl), i, y[i], want[i]);
  }
}

/* Cases: 6 scales (1e-35: outputs near and below FLT_MIN, flushed to +0
   where below; 3e38: near FLT_MAX) x {no mask, 30 % -Inf}. */
static const double FW_SCALES[] = {1e-35, 1e-3, 1.0, 1e3, 1e30, 3e38};

static void fw_input(float *x, size_t n, size_t c, fw_case *o) {
  const double frac = c % 2 ? 0.3 : 0.0;
  fill_scaled(x, n, 900 + 31 * c + n, FW_SCALES[c / 2], frac);
  snprintf(o->what, sizeof o->what, "scale %g masked %g", FW_SCALES[c / 2], frac);
}

TEST(relu_attention_matches_float64_reference) {
  static const size_t big[] = {255, 4097, 65539};
  const fw_sweep row = {.kernel = "relu_attention", .big = big, .nbig = 3, .ncases = 12,
                        .input = fw_input, .model64 = relu64, .rel = RA_REL};
  double worst;
  CHECK(fw_run(&row, &worst), "see above");
  CHECK(worst <= 1.0, "worst %.3g of the bound", worst);
  printf("    worst |y - ref| / (RA_REL |ref|) = %.3g\n", worst);
}

/* SIMD == scalar bit for bit (forward and VJP), every n in 1..67 (the tails
   of both loops) and n = 70001, masked rows and all scales. */
TEST(relu_attention_simd_vs_scalar_bitwise) {
  if (!ss_impl_available(SS_IMPL_SIMD)) SKIP("no SIMD in this build");
  enum { BIG = 70001 };
  float *x = ss_test_alloc(BIG * 4), *g = ss_test_alloc(BIG * 4);
  float *a = ss_test_alloc(BIG * 4), *b = ss_test_alloc(BIG * 4);
  float *da = ss_test_alloc(BIG * 4), *db = ss_test_alloc(BIG * 4);
  for (size_t t = 0; t < 68; t++) {
    const size_t n = t < 67 ? t + 1 : BIG;
    for (size_t c = 0; c < 12; c++) {
      fill_scaled(x, n, 40 * c + n, FW_SCALES[c / 2], c % 2 ? 0.4 : 0.0);
      fill_scaled(g, n, 77 * c + n, 3.0, 0.0);
      CHECK_STATUS(ss_normalize(K(), SS_IMPL_SCALAR, x, n, NULL, 0, a), SS_OK);
      CHECK_STATUS(ss_normalize(K(), SS_IMPL_SIMD, x, n, NULL, 0, b), SS_OK);
      CHECK(memcmp(a, b, n * 4) == 0, "forward n=%zu case %zu differs", n, c);
      CHECK_STATUS(ss_normalize_vjp(K(), SS_IMPL_SCALAR, x, a, g, n, NULL, 0, da), SS_OK);
      CHECK_STATUS(ss_normalize_vjp(K(), SS_IMPL_SIMD, x, b, g, n, NULL, 0, db), SS_OK);
      CHECK(memcmp(da, db, n * 4) == 0, "VJP n=%zu case %zu differs", n, c);
    }
  }
}

/* Exact +0 for x <= 0 (-0, negative subnormals, -Inf included), y > 0 for
   x > 0 while x / L >= FLT_MIN; and +0 for positive x whose x / L is below
   FLT_MIN (the exact-zero rule: no subnormal output). */
TEST(relu_attention_exact_zeros) {
  enum { N = 203 };
  float x[N], y[N];
  st_fill(x, N, 21, -4, 4);
  x[3] = 0.0f, x[4] = -0.0f, x[5] = -0x1p-140f, x[6] = -INFINITY, x[7] = -FLT_MAX;
  x[8] = 0x1p-140f;            /* subnormal input: x / L subnormal */
  x[9] = FLT_MIN * 100.0f;     /* x / L = FLT_MIN 100 / 202 < FLT_MIN */
  x[10] = FLT_MIN * 202.0f;    /* x / L = FLT_MIN: normal */
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_normalize(K(), impl, x, N, NULL, 0, y), SS_OK);
    for (size_t i = 0; i < N; i++) {
      const bool zero = !(x[i] > 0.0f) || i == 8 || i == 9;
      CHECK(zero ? y[i] == 0.0f && !signbit(y[i]) : y[i] >= FLT_MIN, "%s: x[%zu]=%a y=%a",
            ss_impl_name(impl), i, x[i], y[i]);
    }
    CHECK(y[10] == FLT_MIN, "%s: y[10] = %a", ss_impl_name(impl), y[10]);
  }
}

/* sum y = (sum relu x) / L, in double: every output within 2^-24 of its
   exact value, so |sum y - S / L| <= RA_REL S / L + n FLT_MIN. Huge logits
   (3e38 each, n = 1000: sum relu x = 3e41, past FLT_MAX) stay finite: the
   outputs are 3e35 and their double sum is the row mean 3e38. */
TEST(relu_attention_normalization) {
  static const size_t ns[] = {1, 5, 64, 1000, 4099};
  static const double fracs[] = {0.0, 0.5};
  float *x = ss_test_alloc(4099 * 4), *y = ss_test_alloc(4099 * 4);
  for (size_t t = 0; t < 5; t++) {
    const size_t n = ns[t];
    for (size_t f = 0; f < 2; f++) {
      for (size_t c = 0; c < 7; c++) {
        if (c < 6) fill_scaled(x, n, 300 + 7 * c + n, FW_SCALES[c], fracs[f]);
        else
          for (size_t i = 0; i < n; i++) x[i] = 3e38f;
        double s = 0.0, len = 0.0;
        for (size_t i = 0; i < n; i++) {
          s += x[i] > 0.0f ? (double)x[i] : 0.0;
          len += x[i] != -INFINITY;
        }
        FOR_EACH_IMPL(impl) {
          CHECK_STATUS(ss_normalize(K(), impl, x, n, NULL, 0, y), SS_OK);
          double sy = 0.0;
          for (size_t i = 0; i < n; i++) sy += y[i];
          CHECK(isfinite(sy) && fabs(sy - s / len) <= RA_REL * s / len + (double)n * FLT_MIN,
                "%s n=%zu case %zu: sum y %.17g, sum relu / L %.17g", ss_impl_name(impl), n, c, sy,
                s / len);
        }
        if (c == 6) CHECK(fabs(s / len - 3e38) <= 1e32, "mean %.9g", s / len);
      }
    }
  }
}

/* A row with no positive entry: y = 0 and dx = 0 (all negative, all zero,
   -0 and -Inf mixed). */
TEST(relu_attention_nonpositive_rows_are_zero) {
  enum { N = 21 };
  float x[N], y[N], g[N], dx[N];
  st_fill(g, N, 5, -1, 1);
  for (int c = 0; c < 3; c++) {
    if (c == 0) st_fill(x, N, 4, -5, -1e-3f);
    else
      for (size_t i = 0; i < N; i++) x[i] = c == 1 ? 0.0f : (i % 3 ? -0.0f : -INFINITY);
    FOR_EACH_IMPL(impl) {
      st_poison(y, N);
      CHECK_STATUS(ss_normalize(K(), impl, x, N, NULL, 0, y), SS_OK);
      CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, N, NULL, 0, dx), SS_OK);
      for (size_t i = 0; i < N; i++)
        CHECK(y[i] == 0.0f && !signbit(y[i]) && dx[i] == 0.0f, "%s case %d: y[%zu]=%g dx=%g",
              ss_impl_name(impl), c, i, y[i], dx[i]);
    }
  }
}

/* -Inf entries do not count in L: exactly +0 out, every other output as on
   the compacted row, bit for bit in both impls; and by hand:
   (1, -Inf, -Inf, 1) -> (1/2, 0, 0, 1/2), not 1/4. */
TEST(relu_attention_masking) {
  static const size_t ns[] = {2, 7, 16, 37, 64, 1000};
  char why[160];
  for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
    const size_t n = ns[t];
    float *x = ss_test_alloc(n * 4);
    vt_fill_masked(x, n, 70 + n, -6, 6, 0.4);
    FOR_EACH_IMPL(impl)
      CHECK(vt_padding_holds(K(), impl, NULL, 0, x, n, 0, 1e-30f, why, sizeof why), "%s n=%zu: %s",
            ss_impl_name(impl), n, why);
  }
  const float x[4] = {1.0f, -INFINITY, -INFINITY, 1.0f};
  FOR_EACH_IMPL(impl) {
    float y[4];
    CHECK_STATUS(ss_normalize(K(), impl, x, 4, NULL, 0, y), SS_OK);
    CHECK(y[0] == 0.5f && y[1] == 0.0f && y[2] == 0.0f && y[3] == 0.5f, "%s: [%g %g %g %g]",
          ss_impl_name(impl), y[0], y[1], y[2], y[3]);
  }
}

/* n = 1: y = x for x > 0 (L = 1, exact, FLT_MAX included), else +0. */
TEST(relu_attention_n1) {
  const float xs[7] = {-1.0f, 0.0f, -0.0f, 2.0f, 0.3f, FLT_MAX, 1e-20f};
  FOR_EACH_IMPL(impl) {
    for (int c = 0; c < 7; c++) {
      float y[1], dx[1];
      const float g[1] = {0.75f};
      CHECK_STATUS(ss_normalize(K(), impl, &xs[c], 1, NULL, 0, y), SS_OK);
      CHECK_STATUS(ss_normalize_vjp(K(), impl, &xs[c], y, g, 1, NULL, 0, dx), SS_OK);
      const bool pos = xs[c] > 0.0f;
      CHECK(y[0] == (pos ? xs[c] : 0.0f) && !signbit(y[0]) && dx[0] == (pos ? 0.75f : 0.0f),
            "%s: n=1 x=%g gives %g, dx %g", ss_impl_name(impl), xs[c], y[0], dx[0]);
    }
  }
}

/* VJP vs central differences of the float64 model: dx_j = [x_j > 0] g_j / L.
   Logits kept >= 1e-2 away from the kink at 0 (h = 1e-5), a quarter of them
   -Inf (dx = 0 there, checked by fd_run). The model is piecewise linear, so
   the differences are exact but for the rounding of L(x) = <g, f(x)>:
   |dx_j - fd_j| <= RA_REL |g_j| / L + 1e-9 G max(1, scale). */
static const float FD_SCALES[] = {0.5f, 3.0f, 20.0f};

static void fd_input(float *x, float *g, size_t n, size_t c, fd_case *o) {
  vt_fill_masked(x, n, 50 + n + c, -FD_SCALES[c], FD_SCALES[c], 0.25);
  for (size_t i = 0; i < n; i++)
    if (x[i] != -INFINITY && fabsf(x[i]) < 1e-2f) x[i] = 0.05f;
  st_fill(g, n, 60 + n, -2.0f, 2.0f);
  o->model_param = FD_SCALES[c];
  snprintf(o->what, sizeof o->what, "scale %g", FD_SCALES[c]);
}

static void fd_tol(const float *x, const float *g, size_t n, const fd_case *c, const double *p,
                   double G, double *tol) {
  (void)p;
  const double len = (double)st_unmasked(x, n);
  for (size_t j = 0; j < n; j++)
    tol[j] = RA_REL * fabs(g[j]) / len + 1e-9 * G * fmax(1.0, c->model_param);
}

TEST(relu_attention_vjp_matches_finite_differences) {
  static const size_t ns[] = {1, 2, 5, 16, 17, 40, 64};
  const fd_sweep row = {.kernel = "relu_attention", .ns = ns, .nns = sizeof ns / sizeof ns[0],
                        .ncases = 3, .input = fd_input, .model64 = relu64, .tol = fd_tol,
                        .ys = FD_OWN_Y | FD_REF_Y};
  CHECK(fd_run(&row), "see above");
}

/* The VJP exactly: dx_j = float(g_j / L) where x_j > 0, +0 elsewhere,
   whatever y it is given (it reads the support off x). */
TEST(relu_attention_vjp_exact) {
  enum { N = 45 };
  float x[N], y[N], g[N], dx[N];
  vt_fill_masked(x, N, 12, -3, 3, 0.3);
  x[4] = 0x1p-140f; /* its output is flushed to 0, its slope is still 1/L */
  st_fill(g, N, 13, -5, 5);
  const float len = (float)st_unmasked(x, N);
  FOR_EACH_IMPL(impl) {
    st_poison(y, N); /* not read */
    CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, N, NULL, 0, dx), SS_OK);
    for (size_t j = 0; j < N; j++) {
      const float want = x[j] > 0.0f ? g[j] / len : 0.0f;
      CHECK(memcmp(&dx[j], &want, 4) == 0, "%s: dx[%zu] = %a, want %a", ss_impl_name(impl), j,
            dx[j], want);
    }
  }
}

/* Statuses: the normalizer's bad-input battery (NaN, +Inf, both, all -Inf,
   NULL, n = 0, too large, wrong parameter count, family, impl) and the
   VJP's: x validated like the forward's, g finite. */
TEST(relu_attention_statuses) {
  const double p[1] = {0.0};
  st_normalizer_bad_inputs(K(), p, 0);
  enum { N = 37 };
  float x[N], y[N], g[N], dx[N];
  FOR_EACH_IMPL(impl) {
    st_fill(x, N, 3, -2, 2);
    st_fill(g, N, 4, -2, 2);
    x[33] = NAN;
    CHECK_STATUS(ss_normalize(K(), impl, x, N, NULL, 0, y), SS_ERR_NAN);
    CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, N, NULL, 0, dx), SS_ERR_NAN);
    x[33] = INFINITY;
    CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, N, NULL, 0, dx), SS_ERR_POS_INF);
    x[2] = NAN; /* NaN wins over +Inf */
    CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, N, NULL, 0, dx), SS_ERR_NAN);
    for (size_t i = 0; i < N; i++) x[i] = -INFINITY;
    CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, N, NULL, 0, dx), SS_ERR_ALL_MASKED);
    st_fill(x, N, 3, -2, 2);
    CHECK_STATUS(ss_normalize(K(), impl, x, N, NULL, 0, y), SS_OK);
    g[7] = NAN;
    CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, N, NULL, 0, dx), SS_ERR_NAN);
    g[7] = -INFINITY;
    CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, N, NULL, 0, dx), SS_ERR_NONFINITE);
    g[7] = 1.0f;
    CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, N, p, 1, dx), SS_ERR_PARAM_COUNT);
    CHECK_STATUS(ss_normalize_vjp(K(), impl, x, y, g, N, NULL, 0, dx), SS_OK);
  }
}

/* In causal attention (sdpa), L is the number of keys query i sees: with
   n = m, row i's weights are relu(s_ij) / (i + 1) -- Guo et al.'s divisor
   -- and a padding key also drops out of L. Scores in double; each weight
   within 1e-5 of relu(s) / L (the float dot products), masked ones +0. */
TEST(relu_attention_causal_length_in_sdpa) {
  enum { NQ = 9, D = 8 };
  const ss_kernel_info *sdpa = ss_kernel_find("sdpa", SS_FAMILY_ATTENTION);
  CHECK(sdpa != NULL, "no sdpa");
  float q[NQ * D], k[NQ * D], v[NQ * D], out[NQ * D], attn[NQ * NQ];
  st_fill(q, NQ * D, 81, -1, 1);
  st_fill(k, NQ * D, 82, -1, 1);
  st_fill(v, NQ * D, 83, -1, 1);
  uint8_t mask[NQ];
  for (int pad = 0; pad < 2; pad++) {
    for (size_t j = 0; j < NQ; j++) mask[j] = !(pad && j == 2);
    const double p[3] = {1, 0, 1}; /* one head, default scale, causal */
    ss_attention_io io = {.q = q, .k = k, .v = v, .n = NQ, .m = NQ, .d = D, .dv = D, .heads = 1,
                          .key_mask = mask, .normalizer = K(), .out = out, .attn = attn};
    const size_t sc = ss_attention_scratch_size(sdpa, &io, p);
    io.scratch = ss_test_alloc((sc ? sc : 1) * 4);
    FOR_EACH_IMPL(impl) {
      CHECK_STATUS(ss_attend(sdpa, impl, &io, p, 3), SS_OK);
      for (size_t i = 0; i < NQ; i++) {
        const double len = (double)(i + 1) - (pad && i >= 2);
        for (size_t j = 0; j < NQ; j++) {
          const float a = attn[i * NQ + j];
          if (j > i || !mask[j]) {
            CHECK(a == 0.0f && !signbit(a), "%s pad %d: masked a[%zu][%zu] = %g", ss_impl_name(impl),
                  pad, i, j, a);
            continue;
          }
          double s = 0.0;
          for (size_t t = 0; t < D; t++) s += (double)q[i * D + t] * k[j * D + t];
          s /= sqrt((double)D);
          const double want = s > 0.0 ? s / len : 0.0;
          CHECK(fabs(a - want) <= 1e-5 * (fabs(s) / len + 1e-3), "%s pad %d: a[%zu][%zu] = %.9g, want %.9g",
                ss_impl_name(impl), pad, i, j, a, want);
        }
      }
    }
    ss_test_free(io.scratch);
  }
}
