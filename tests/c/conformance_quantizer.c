/*
 * Conformance tester of every registered quantizer and of pack / unpack
 * (registry-driven; see conformance.h). For each kernel, each parameter
 * case and each input kind at the lengths below:
 *   - scalar and SIMD give the same status and bit-identical codes and y
 *     (quantizers are deterministic like the samplers);
 *   - in-range parameters on moderate positive values give SS_OK (or a size
 *     status); values of both signs and extreme magnitudes may also get
 *     SS_ERR_DOMAIN (a kernel's stated domain, e.g. log quantizers);
 *   - on SS_OK: y finite with |y_i| <= 2 max|x| (a quantizer rounds within
 *     its range), codes fit 8 bits (signed or unsigned) and `bits` bits
 *     where the kernel has that parameter, and the codes pack and unpack
 *     back to themselves at every width they fit;
 *   - every n from 0 to 67 and n = 65539 with the defaults; past a kernel's
 *     own limit (ss_kernel_max_n, the registry's max_n) SS_ERR_TOO_LARGE,
 *     checked at that limit + 1 and at 65539;
 *   - bad inputs get their status (NaN, +-Inf, NULL, n = 0, n > SS_MAX_N,
 *     every invalid parameter, wrong count) and leave y untouched;
 *   - the descriptor's facts (the registry JSON's domain and cast_max, read
 *     by the JS package instead of trial calls) are C's behaviour: a
 *     negative value is SS_ERR_DOMAIN in every impl exactly when the kernel
 *     says nonnegative; FLT_MAX at scale 1 saturates to exactly cast_max
 *     (-FLT_MAX to -cast_max), and the quantizers with a scale and no bits
 *     are the casts;
 *   - pack / unpack: every width and signedness round-trips at every n from
 *     1 to 67, codes out of range are SS_ERR_DOMAIN, bad widths
 *     SS_ERR_PARAM_RANGE, ss_packed_bytes is 0 for a width or n it cannot
 *     serve.
 */
#include "family_adapter.h"

static const size_t PARAM_NS[] = {1, 2, 3, 5, 16, 17, 64, 67, 256};
#define NPARAM_NS (sizeof PARAM_NS / sizeof PARAM_NS[0])

/* Pack and unpack codes at width `bits`; false when they do not round-trip. */
static bool round_trip(const int32_t *codes, size_t n, int bits, bool sgn, uint8_t *buf,
                       int32_t *back) {
  if (ss_pack(codes, n, bits, sgn, buf) != SS_OK) return false;
  if (ss_unpack(buf, n, bits, sgn, back) != SS_OK) return false;
  return memcmp(codes, back, n * 4) == 0;
}

static bool check_output(const ss_kernel_info *k, const float *x, size_t n, const double *p,
                         const int32_t *codes, const float *y, const char *what, uint8_t *buf,
                         int32_t *back) {
  const double xmax = cf_max_abs(x, n);
  for (size_t i = 0; i < n; i++)
    if (!isfinite(y[i]) || fabs(y[i]) > 2.0 * xmax) {
      ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: y[%zu] = %g (x = %g, max|x| = %g)", k->name,
                   what, n, i, y[i], x[i], xmax);
      return false;
    }
  int32_t lo = 0, hi = 0;
  for (size_t i = 0; i < n; i++) lo = codes[i] < lo ? codes[i] : lo, hi = codes[i] > hi ? codes[i] : hi;
  const bool sgn = lo < 0;
  const long bi = cf_param_index(k, "bits");
  const int bits = bi >= 0 ? (int)p[bi] : 8;
  const int32_t cap_lo = sgn ? -(1 << (bits - 1)) : 0, cap_hi = sgn ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
  if (lo < cap_lo || hi > cap_hi) {
    ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: codes in [%d, %d] do not fit %d bits", k->name,
                 what, n, (int)lo, (int)hi, bits);
    return false;
  }
  for (int w = 8; w >= 2; w /= 2) {
    const int32_t wl = sgn ? -(1 << (w - 1)) : 0, wh = sgn ? (1 << (w - 1)) - 1 : (1 << w) - 1;
    if (lo < wl || hi > wh) break;
    if (!round_trip(codes, n, w, sgn, buf, back)) {
      ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: codes do not round-trip at %d bits", k->name,
                   what, n, w);
      return false;
    }
  }
  return true;
}

typedef struct {
  int32_t *c0, *c1, *back;
  float *y0, *y1;
  uint8_t *buf;
} qbufs;

static qbufs qbufs_alloc(size_t n) {
  qbufs b = {ss_test_alloc(n * 4), ss_test_alloc(n * 4), ss_test_alloc(n * 4),
             ss_test_alloc(n * 4), ss_test_alloc(n * 4), ss_test_alloc(n + 1)};
  return b;
}

/* Past the kernel's own size limit (the registry's max_n, below SS_MAX_N):
   SS_ERR_TOO_LARGE in every impl, y untouched. */
static bool beyond_limit(const ss_kernel_info *k, const float *x, size_t n, const double *p,
                         qbufs *b, const char *what, cf_count *cnt) {
  bool ok = true;
  FOR_EACH_IMPL(impl) {
    cf_poison(b->y0, n);
    const ss_status s = ss_quantize(k, impl, x, n, p, k->nparams, b->c0, b->y0);
    cnt->calls++;
    if (s != SS_ERR_TOO_LARGE || !cf_untouched(b->y0, n)) {
      ss_test_fail(__FILE__, __LINE__, "%s %s %s n=%zu > max_n %zu: %s%s", k->name, ss_impl_name(impl), what,
                   n, ss_kernel_max_n(k), ss_status_name(s), cf_untouched(b->y0, n) ? "" : " (written)");
      ok = false;
    }
  }
  return ok;
}

static bool run_case(const ss_kernel_info *k, const float *x, size_t n, const double *p,
                     bool lenient, qbufs *b, const char *what, cf_count *cnt) {
  if (n > ss_kernel_max_n(k)) return beyond_limit(k, x, n, p, b, what, cnt);
  const ss_status s0 = ss_quantize(k, SS_IMPL_SCALAR, x, n, p, k->nparams, b->c0, b->y0);
  cnt->calls++;
  if (!cf_scalar_status(k, s0, cf_status_allowed(s0, lenient), what, n, p)) return false;
  if (s0 == SS_OK) {
    cnt->ok++;
    if (!check_output(k, x, n, p, b->c0, b->y0, what, b->buf, b->back)) return false;
  }
  if (!cf_has_simd()) return true;
  const ss_status s1 = ss_quantize(k, SS_IMPL_SIMD, x, n, p, k->nparams, b->c1, b->y1);
  cnt->calls++;
  if (s1 != s0) {
    ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: scalar %s, SIMD %s", k->name, what, n,
                 ss_status_name(s0), ss_status_name(s1));
    cf_print_params(k, p);
    return false;
  }
  if (s0 == SS_OK && (memcmp(b->c0, b->c1, n * 4) != 0 || memcmp(b->y0, b->y1, n * 4) != 0)) {
    size_t at = 0;
    while (at + 1 < n && b->c0[at] == b->c1[at] && memcmp(&b->y0[at], &b->y1[at], 4) == 0) at++;
    ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: SIMD differs at %zu: code %d y %.9g vs %d %.9g",
                 k->name, what, n, at, (int)b->c1[at], b->y1[at], (int)b->c0[at], b->y0[at]);
    return false;
  }
  return true;
}

/* The buffers of the params and lengths sweeps. */
typedef struct {
  float *x;
  qbufs b;
} quant_sweep;

static quant_sweep sweep_alloc(size_t n) {
  quant_sweep w = {ss_test_alloc(n * 4), qbufs_alloc(n)};
  return w;
}

/* One sweep run: the kind's values positive (strict) and of both signs; at
   the large n (k-means at 65539 points is the heavy one) normal and huge
   only. */
static bool sweep_run(const cf_run *r, void *ctx, cf_count *cnt) {
  quant_sweep *w = ctx;
  if (r->n > CF_SWEEP_N && r->kind != CF_NORMAL && r->kind != CF_HUGE) return true;
  for (int sgn = 0; sgn < 2; sgn++) {
    cf_fill(w->x, r->n, SS_INPUT_VALUES, r->kind, sgn == 0, r->seed);
    char what[160];
    snprintf(what, sizeof what, "[%s, %s%s]", r->label, cf_kind_name[r->kind],
             sgn ? ", signed" : "");
    if (!run_case(r->k, w->x, r->n, r->p, sgn == 1 || r->extreme, &w->b, what, cnt)) return false;
  }
  return true;
}

/* After a kernel's parameter cases: the defaults work on moderate values
   where the sizes allow. */
static bool params_end(const ss_kernel_info *k, bool ok, void *ctx, cf_count *cnt) {
  (void)cnt;
  quant_sweep *w = ctx;
  double p[CF_MAX_PARAMS];
  cf_defaults(k, 256, p);
  cf_fill(w->x, 256, SS_INPUT_VALUES, CF_NORMAL, true, 3);
  if (ok && ss_quantize(k, SS_IMPL_SCALAR, w->x, 256, p, k->nparams, w->b.c0, w->b.y0) != SS_OK) {
    ss_test_fail(__FILE__, __LINE__, "%s: defaults fail at n = 256", k->name);
    ok = false;
  }
  return ok;
}

/* After a kernel's lengths: one past its own limit is SS_ERR_TOO_LARGE too. */
static bool lengths_end(const ss_kernel_info *k, bool ok, void *ctx, cf_count *cnt) {
  quant_sweep *w = ctx;
  const size_t lim = ss_kernel_max_n(k);
  if (ok && lim < CF_LARGE_N) {
    double p[CF_MAX_PARAMS];
    cf_defaults(k, lim + 1, p);
    cf_fill(w->x, lim + 1, SS_INPUT_VALUES, CF_NORMAL, false, 5);
    ok = beyond_limit(k, w->x, lim + 1, p, &w->b, "[defaults, normal]", cnt);
  }
  return ok;
}

TEST(conformance_quantizer_params) {
  quant_sweep w = sweep_alloc(PARAM_NS[NPARAM_NS - 1]);
  const cf_sweep s = {.family = SS_FAMILY_QUANTIZER, .run = sweep_run, .ctx = &w,
                      .end = params_end};
  CHECK(CF_PARAMS_SWEEP("quantizer params", &s, PARAM_NS, 500, 4, 4), "see above");
}

TEST(conformance_quantizer_lengths) {
  quant_sweep w = sweep_alloc(CF_LARGE_N);
  const cf_sweep s = {.family = SS_FAMILY_QUANTIZER, .run = sweep_run, .ctx = &w,
                      .length_seed = 0, .end = lengths_end, .adapter = &cf_quantizer_adapter};
  CHECK(cf_lengths_sweep("quantizer lengths", &s), "see above");
}

TEST(conformance_quantizer_bad_inputs) {
  static const size_t where[] = {0, 5, 16, 31};
  CHECK(CF_FAMILY_BAD_INPUTS(&cf_quantizer_adapter, 32, where, NULL, 0), "see above");
}

TEST(conformance_quantizer_domain_and_cast_max) {
  enum { N = 16 }; /* vq's default codebook: 16 points */
  float mixed[N], mag[N], y[N];
  int32_t codes[N];
  for (size_t i = 0; i < N; i++) mixed[i] = (i % 2 ? 1.0f : -1.0f) * (float)(i + 1) / N;
  for (size_t i = 0; i < N; i++) mag[i] = fabsf(mixed[i]);
  for (size_t i = 0; i < ss_kernel_count(); i++) {
    const ss_kernel_info *k = ss_kernel_at(i);
    if (k->family != SS_FAMILY_QUANTIZER) continue;
    double p[CF_MAX_PARAMS];
    cf_defaults(k, N, p);
    FOR_EACH_IMPL(impl) {
      const ss_status neg = ss_quantize(k, impl, mixed, N, p, k->nparams, codes, y);
      const ss_status pos = ss_quantize(k, impl, mag, N, p, k->nparams, codes, y);
      CHECK(pos == SS_OK, "%s %s: |x| gives %s", k->name, ss_impl_name(impl), ss_status_name(pos));
      CHECK(neg == (k->nonnegative ? SS_ERR_DOMAIN : SS_OK), "%s %s: nonnegative %d, x of both signs gives %s",
            k->name, ss_impl_name(impl), (int)k->nonnegative, ss_status_name(neg));
    }
    const long si = cf_param_index(k, "scale");
    const bool cast = si >= 0 && cf_param_index(k, "bits") < 0;
    CHECK(cast == (k->cast_max > 0), "%s: a scale and no bits (a cast): %d, cast_max %g", k->name,
          (int)cast, k->cast_max);
    if (!cast) continue;
    const float big[2] = {FLT_MAX, -FLT_MAX};
    p[si] = 1.0;
    FOR_EACH_IMPL(impl) {
      const ss_status s = ss_quantize(k, impl, big, k->nonnegative ? 1 : 2, p, k->nparams, codes, y);
      CHECK_STATUS(s, SS_OK);
      CHECK((double)y[0] == k->cast_max, "%s %s: FLT_MAX at scale 1 gives %.9g, cast_max %.9g", k->name,
            ss_impl_name(impl), y[0], k->cast_max);
      CHECK(k->nonnegative || (double)y[1] == -k->cast_max, "%s %s: -FLT_MAX gives %.9g", k->name,
            ss_impl_name(impl), y[1]);
    }
  }
}

TEST(conformance_pack_unpack) {
  enum { N = CF_SWEEP_N };
  int32_t codes[N], back[N];
  uint8_t buf[N + 1];
  ss_rng r = {9};
  for (int bits = 2; bits <= 8; bits *= 2)
    for (int sgn = 0; sgn < 2; sgn++) {
      const int32_t lo = sgn ? -(1 << (bits - 1)) : 0, hi = sgn ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
      for (size_t n = 1; n <= N; n++) {
        for (size_t i = 0; i < n; i++)
          codes[i] = i == 0 ? lo : i == 1 ? hi : lo + (int32_t)(ss_rng_u64(&r) % (uint64_t)(hi - lo + 1));
        const size_t bytes = ss_packed_bytes(n, bits);
        CHECK(bytes == (n * (size_t)bits + 7) / 8, "packed bytes %zu at n=%zu bits=%d", bytes, n, bits);
        memset(buf, 0xA5, sizeof buf);
        CHECK(round_trip(codes, n, bits, sgn, buf, back), "bits %d signed %d n=%zu", bits, sgn, n);
        CHECK(buf[bytes] == 0xA5, "pack wrote past ss_packed_bytes (n=%zu bits=%d)", n, bits);
        /* one code past either end of the range */
        const size_t at = n / 2;
        const int32_t keep = codes[at];
        codes[at] = hi + 1;
        CHECK_STATUS(ss_pack(codes, n, bits, sgn, buf), SS_ERR_DOMAIN);
        codes[at] = lo - 1;
        CHECK_STATUS(ss_pack(codes, n, bits, sgn, buf), SS_ERR_DOMAIN);
        codes[at] = keep;
      }
      CHECK_STATUS(ss_pack(codes, 0, bits, sgn, buf), SS_ERR_EMPTY);
      CHECK_STATUS(ss_unpack(buf, 0, bits, sgn, back), SS_ERR_EMPTY);
      CHECK_STATUS(ss_pack(codes, SS_MAX_N + 1, bits, sgn, buf), SS_ERR_TOO_LARGE);
      CHECK_STATUS(ss_unpack(buf, SS_MAX_N + 1, bits, sgn, back), SS_ERR_TOO_LARGE);
      CHECK_STATUS(ss_pack(NULL, 4, bits, sgn, buf), SS_ERR_NULL);
      CHECK_STATUS(ss_pack(codes, 4, bits, sgn, NULL), SS_ERR_NULL);
      CHECK_STATUS(ss_unpack(NULL, 4, bits, sgn, back), SS_ERR_NULL);
      CHECK_STATUS(ss_unpack(buf, 4, bits, sgn, NULL), SS_ERR_NULL);
      CHECK(ss_packed_bytes(SS_MAX_N + 1, bits) == 0, "packed bytes past SS_MAX_N");
      CHECK(ss_packed_bytes((size_t)-1, bits) == 0, "packed bytes of SIZE_MAX");
    }
  static const int bad[] = {0, 1, 3, 5, 7, 9, 16, 32, -8, 64};
  for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
    CHECK(ss_packed_bytes(8, bad[b]) == 0, "packed bytes of %d bits", bad[b]);
    CHECK_STATUS(ss_pack(codes, 8, bad[b], false, buf), SS_ERR_PARAM_RANGE);
    CHECK_STATUS(ss_unpack(buf, 8, bad[b], false, back), SS_ERR_PARAM_RANGE);
  }
}
