/*
 * Conformance tester of every registered attention kernel (registry-
 * driven; see conformance.h). Exact attention (SS_ROLE_EXACT_ATTENTION)
 * runs with every registered normalizer that outputs weights (its
 * defaults). For each kernel, each parameter case (heads picks d = dv =
 * heads * dh) and each input kind, with and without a padding mask:
 *   - scalar and SIMD give the same status; in-range parameters on moderate
 *     Q, K, V give SS_OK (or a size / mask status), extreme ones may also
 *     get SS_ERR_DOMAIN (scores that overflow float), and so may linear
 *     attention anywhere (random-feature estimates of 0 / 0 at large
 *     scaled scores), as long as both impls agree;
 *   - on SS_OK out and the attention matrix are finite, invisible keys
 *     (padding, causal) get exactly +0 weight, no weight is subnormal (the
 *     exact-zero rule), exact attention's weights have the same support
 *     in both impls (the same exact zeros: cf_same_support), and SIMD
 *     agrees with scalar within ATT_REL of the largest |out| (and of the
 *     largest weight);
 *   - every n = m from 1 to 67, n = 1 with m = 65539 and n = 65539 with m = 1;
 *   - bad inputs get their status (NaN / +-Inf in Q, K or V, NULL
 *     pointers, empty or too large shapes, heads not matching or not
 *     dividing d, every invalid parameter, wrong count, all keys masked, a
 *     missing or wrong normalizer) and ss_attention_scratch_size is 0 for
 *     parameters it cannot size (never undefined behaviour).
 */
#include "conformance.h"

#define ATT_REL 0x1p-14

static bool is_attention(const ss_kernel_info *k) { return k->family == SS_FAMILY_ATTENTION; }
static bool exact(const ss_kernel_info *k) { return k->role == SS_ROLE_EXACT_ATTENTION; }

typedef struct {
  float *q, *k, *v, *out0, *out1, *attn0, *attn1, *scratch;
  uint8_t *mask;
  size_t cap_qkv, cap_attn, cap_scratch;
} abufs;

static void grow(float **p, size_t *cap, size_t want) {
  (void)cap;
  *p = ss_test_alloc(want * 4 + 4);
}

/* Buffers for one call shape (allocated per call; freed with the test). */
static abufs make(size_t n, size_t m, size_t d, size_t heads, size_t scratch) {
  abufs b = {0};
  grow(&b.q, &b.cap_qkv, n * d);
  grow(&b.k, &b.cap_qkv, m * d);
  grow(&b.v, &b.cap_qkv, m * d);
  grow(&b.out0, &b.cap_qkv, n * d);
  grow(&b.out1, &b.cap_qkv, n * d);
  grow(&b.attn0, &b.cap_attn, heads * n * m);
  grow(&b.attn1, &b.cap_attn, heads * n * m);
  grow(&b.scratch, &b.cap_scratch, scratch);
  b.mask = ss_test_alloc(m + 1);
  return b;
}

static void release(abufs *b) {
  float *const all[] = {b->q, b->k, b->v, b->out0, b->out1, b->attn0, b->attn1, b->scratch};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) ss_test_free(all[i]);
  ss_test_free(b->mask);
}

static bool visible(size_t i, size_t j, size_t n, size_t m, bool causal, const uint8_t *mask) {
  if (mask && !mask[j]) return false;
  return !causal || (long long)j <= (long long)i + (long long)m - (long long)n;
}

/* One call shape in every impl. */
static bool run_shape(const ss_kernel_info *k, const ss_kernel_info *norm, size_t n, size_t m,
                      size_t dh, const double *p, int kind, bool masked, uint64_t seed,
                      const char *what, cf_count *cnt) {
  const long hi = cf_param_index(k, "heads");
  const size_t heads = hi >= 0 ? (size_t)p[hi] : 1, d = heads * dh;
  double np[CF_MAX_PARAMS];
  if (norm) cf_defaults(norm, m, np);
  ss_attention_io io = {NULL, NULL, NULL, n, m, d, d, heads, NULL, norm, np,
                        norm ? norm->nparams : 0, NULL, NULL, NULL};
  const size_t sz = ss_attention_scratch_size(k, &io, p);
  abufs b = make(n, m, d, heads, sz);
  cf_fill(b.q, n * d, SS_INPUT_VALUES, kind, false, seed);
  cf_fill(b.k, m * d, SS_INPUT_VALUES, kind, false, seed + 1);
  cf_fill(b.v, m * d, SS_INPUT_VALUES, kind < CF_MODERATE_KINDS ? CF_NORMAL : kind, false, seed + 2);
  ss_rng r = {seed};
  for (size_t j = 0; j < m; j++) b.mask[j] = !masked || ss_rng_u64(&r) % 3 != 0;
  b.mask[m - 1] = 1;
  io.q = b.q, io.k = b.k, io.v = b.v, io.key_mask = masked ? b.mask : NULL;
  io.scratch = b.scratch;
  const bool causal = ss_param_value(k, p, "causal", 0) != 0;
  bool ok = true;
  ss_status s0 = SS_OK;
  FOR_EACH_IMPL(impl) {
    io.out = impl == SS_IMPL_SCALAR ? b.out0 : b.out1;
    io.attn = impl == SS_IMPL_SCALAR ? b.attn0 : b.attn1;
    const ss_status s = ss_attend(k, impl, &io, p, k->nparams);
    cnt->calls++;
    if (impl == SS_IMPL_SCALAR) {
      s0 = s;
      /* linear attention by random exponential features (performer) finds
         a row's estimate 0 / 0 when the scaled scores are large (wide or
         deep inputs, a large scale; softscope.h): SS_ERR_DOMAIN, a clear
         error, is allowed for the linear forms on any input */
      const bool lenient = kind >= CF_MODERATE_KINDS || k->role == SS_ROLE_LINEAR_ATTENTION;
      if (!cf_status_allowed(s, lenient)) {
        ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu m=%zu: status %s", k->name, what, n, m,
                     ss_status_name(s));
        ok = false;
        break;
      }
      if (s == SS_OK) cnt->ok++;
    } else if (s != s0) {
      ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu m=%zu: scalar %s, SIMD %s", k->name, what, n, m,
                   ss_status_name(s0), ss_status_name(s));
      ok = false;
      break;
    }
    if (s != SS_OK) continue;
    size_t at;
    if (!cf_no_subnormal(io.attn, heads * n * m, &at)) {
      ss_test_fail(__FILE__, __LINE__, "%s %s: weight %a is subnormal or -0 (exact-zero rule)",
                   k->name, what, io.attn[at]);
      ok = false;
      break;
    }
    for (size_t t = 0; t < n * d && ok; t++)
      if (!isfinite(io.out[t])) {
        ss_test_fail(__FILE__, __LINE__, "%s %s: out[%zu] = %g", k->name, what, t, io.out[t]);
        ok = false;
      }
    for (size_t h = 0; h < heads && ok; h++)
      for (size_t i = 0; i < n && ok; i++)
        for (size_t j = 0; j < m && ok; j++) {
          const float a = io.attn[(h * n + i) * m + j];
          if (!isfinite(a) || (!visible(i, j, n, m, causal, io.key_mask) && (a != 0.0f || signbit(a)))) {
            ss_test_fail(__FILE__, __LINE__, "%s %s %s: weight (%zu, %zu, %zu) = %g", k->name, what,
                         ss_impl_name(impl), h, i, j, a);
            ok = false;
          }
        }
  }
  if (ok && s0 == SS_OK && cf_has_simd()) {
    const double om = cf_max_abs(b.out0, n * d), am = cf_max_abs(b.attn0, heads * n * m);
    for (size_t t = 0; t < n * d && ok; t++)
      if (fabs((double)b.out1[t] - b.out0[t]) > ATT_REL * om) {
        ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu m=%zu: SIMD out[%zu] %.9g, scalar %.9g",
                     k->name, what, n, m, t, b.out1[t], b.out0[t]);
        ok = false;
      }
    size_t at = 0;
    if (ok && exact(k) && !cf_same_support(b.attn0, b.attn1, NULL, heads * n * m, &at)) {
      ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu m=%zu: support differs at weight[%zu]: SIMD %.9g, scalar %.9g",
                   k->name, what, n, m, at, b.attn1[at], b.attn0[at]);
      ok = false;
    }
    for (size_t t = 0; t < heads * n * m && ok; t++)
      if (fabs((double)b.attn1[t] - b.attn0[t]) > ATT_REL * am) {
        ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu m=%zu: SIMD weight[%zu] %.9g, scalar %.9g",
                     k->name, what, n, m, t, b.attn1[t], b.attn0[t]);
        ok = false;
      }
  }
  release(&b);
  return ok;
}

/* The normalizers exact attention runs with: every one that outputs
   weights (NULL-terminated); linear attention takes none. */
static size_t normalizers(const ss_kernel_info *k, const ss_kernel_info **out, size_t cap) {
  size_t c = 0;
  if (!exact(k)) {
    out[c++] = NULL;
    return c;
  }
  for (size_t i = 0; i < ss_kernel_count() && c < cap; i++) {
    const ss_kernel_info *nk = ss_kernel_at(i);
    if (nk->family == SS_FAMILY_NORMALIZER && nk->output != SS_OUTPUT_LOG_PROBS) out[c++] = nk;
  }
  return c;
}

TEST(conformance_attention_params) {
  static const size_t shapes[][2] = {{1, 1}, {3, 5}, {6, 6}, {9, 4}};
  cf_count cnt = {0};
  size_t cap;
  cf_case *cases = cf_cases_alloc(&cap);
  const ss_kernel_info *norms[64];
  bool all_ok = true;
  for (size_t ki = 0; ki < ss_kernel_count(); ki++) {
    const ss_kernel_info *k = ss_kernel_at(ki);
    if (!is_attention(k)) continue;
    cnt.kernels++;
    const size_t nn = normalizers(k, norms, 64);
    const size_t nc = cf_valid_cases(k, 6, 1100, 3, 4, cases, cap);
    cnt.cases += nc;
    bool ok = true;
    for (size_t c = 0; c < nc && ok; c++) {
      const long hi = cf_param_index(k, "heads");
      const size_t heads = hi >= 0 ? (size_t)cases[c].p[hi] : 1;
      const size_t dh = heads > SS_ATTN_MAX_DIM / 3 ? 1 : 3;
      /* a case with a large count (heads, features >= 512) costs up to
         2^24 feature draws per call: one shape, two kinds */
      bool heavy = false;
      for (size_t i = 0; i < k->nparams; i++)
        heavy |= k->params[i].type == SS_PARAM_INT && cases[c].p[i] >= 512 &&
                 k->params[i].max <= SS_ATTN_MAX_DIM;
      for (size_t s = 0; s < (heavy ? 1 : 4) && ok; s++)
        for (int kind = 0; kind < CF_KINDS && ok; kind++) {
          if (heavy && kind != CF_NORMAL && kind != CF_HUGE) continue;
          /* every normalizer on the first shape, one (in turn) on the others */
          for (size_t u = 0; u < nn && ok; u++) {
            if (s > 0 && u != (c + (size_t)kind) % nn) continue;
            char what[200];
            snprintf(what, sizeof what, "[%s, %s, %s]", cases[c].what, cf_kind_name[kind],
                     norms[u] ? norms[u]->name : "-");
            ok = run_shape(k, norms[u], shapes[s][0], shapes[s][1], heads > 64 ? 1 : dh,
                           cases[c].p, kind, (c + s) % 2 == 1, 31 * c + s, what, &cnt);
          }
        }
    }
    all_ok &= ok;
  }
  cf_report("attention params", &cnt);
  CHECK(all_ok, "see above");
}

TEST(conformance_attention_lengths) {
  cf_count cnt = {0};
  const ss_kernel_info *norms[64];
  bool all_ok = true;
  for (size_t ki = 0; ki < ss_kernel_count(); ki++) {
    const ss_kernel_info *k = ss_kernel_at(ki);
    if (!is_attention(k)) continue;
    cnt.kernels++;
    const size_t nn = normalizers(k, norms, 64);
    bool ok = true;
    for (size_t t = 1; t <= CF_SWEEP_N + 2 && ok; t++) {
      const size_t n = t <= CF_SWEEP_N ? t : t == CF_SWEEP_N + 1 ? 1 : CF_LARGE_N;
      const size_t m = t <= CF_SWEEP_N ? t : t == CF_SWEEP_N + 1 ? CF_LARGE_N : 1;
      double p[CF_MAX_PARAMS];
      cf_defaults(k, m, p);
      for (int kind = 0; kind < CF_KINDS && ok; kind++) {
        /* the two 65539-long shapes: normal inputs (and a padding mask) */
        if (t > CF_SWEEP_N && kind != CF_NORMAL && kind != CF_MASKED) continue;
        const ss_kernel_info *nk = norms[(t + (size_t)kind) % nn];
        char what[120];
        snprintf(what, sizeof what, "[defaults, %s, %s]", cf_kind_name[kind], nk ? nk->name : "-");
        ok = run_shape(k, nk, n, m, 2, p, kind, kind % 2 == 1, 7 * t + (uint64_t)kind, what, &cnt);
      }
    }
    all_ok &= ok;
  }
  cf_report("attention lengths", &cnt);
  CHECK(all_ok, "see above");
}

TEST(conformance_attention_bad_inputs) {
  enum { N = 5, M = 7, D = 8, H = 2 };
  size_t cap;
  cf_case *cases = cf_cases_alloc(&cap);
  const ss_kernel_info *softmax = NULL;
  for (size_t i = 0; i < ss_kernel_count() && !softmax; i++)
    if (ss_kernel_at(i)->family == SS_FAMILY_NORMALIZER &&
        ss_kernel_at(i)->output == SS_OUTPUT_PROBS && ss_kernel_at(i)->nparams == 0)
      softmax = ss_kernel_at(i);
  const ss_kernel_info *logp = NULL, *other = NULL;
  for (size_t i = 0; i < ss_kernel_count(); i++) {
    const ss_kernel_info *nk = ss_kernel_at(i);
    if (nk->family == SS_FAMILY_NORMALIZER && nk->output == SS_OUTPUT_LOG_PROBS) logp = nk;
    if (nk->family != SS_FAMILY_NORMALIZER && nk->family != SS_FAMILY_ATTENTION) other = nk;
  }
  CHECK(softmax && logp && other, "the registry lacks a normalizer kind this test uses");
  float q[N * D], kk[M * D], v[M * D], out[N * D], attn[H * N * M], scratch[1 << 16];
  uint8_t mask[M];
  bool all_ok = true;
  cf_count cnt = {0};
  for (size_t ki = 0; ki < ss_kernel_count(); ki++) {
    const ss_kernel_info *k = ss_kernel_at(ki);
    if (!is_attention(k)) continue;
    cnt.kernels++;
    double p[CF_MAX_PARAMS + 1];
    cf_defaults(k, M, p);
    const long hi = cf_param_index(k, "heads");
    CHECK(hi >= 0, "%s has no heads parameter", k->name);
    p[hi] = H;
    p[k->nparams] = 0;
    const size_t np = k->nparams;
    cf_fill(q, N * D, SS_INPUT_VALUES, CF_NORMAL, false, 1);
    cf_fill(kk, M * D, SS_INPUT_VALUES, CF_NORMAL, false, 2);
    cf_fill(v, M * D, SS_INPUT_VALUES, CF_NORMAL, false, 3);
    memset(mask, 1, M);
    const ss_attention_io good = {q, kk, v, N, M, D, D, H, mask, softmax, NULL, 0, out, attn, scratch};
    bool ok = ss_attention_scratch_size(k, &good, p) <= sizeof scratch / 4;
    FOR_EACH_IMPL(impl) {
#define EXPECT(io_, prm, npr, want)                                                           \
  do {                                                                                        \
    const ss_status s_ = ss_attend(k, impl, (io_), (prm), (npr));                             \
    ss_test_count(1);                                                                         \
    if (s_ != (want)) {                                                                       \
      ss_test_fail(__FILE__, __LINE__, "%s %s: got %s, want %s", k->name, ss_impl_name(impl), \
                   ss_status_name(s_), ss_status_name(want));                                 \
      ok = false;                                                                             \
    }                                                                                         \
  } while (0)
      ss_attention_io io = good;
      EXPECT(&io, p, np, SS_OK);
      float *const arrays[3] = {q, kk, v};
      const size_t lens[3] = {N * D, M * D, M * D};
      for (int a = 0; a < 3; a++)
        for (size_t at = 0; at < lens[a]; at += lens[a] / 3 + 1) {
          const float keep = arrays[a][at];
          arrays[a][at] = NAN;
          EXPECT(&io, p, np, SS_ERR_NAN);
          arrays[a][at] = INFINITY;
          EXPECT(&io, p, np, SS_ERR_NONFINITE);
          arrays[a][at] = -INFINITY;
          EXPECT(&io, p, np, SS_ERR_NONFINITE);
          arrays[a][at] = keep;
        }
      EXPECT(NULL, p, np, SS_ERR_NULL);
      io.q = NULL; EXPECT(&io, p, np, SS_ERR_NULL); io = good;
      io.k = NULL; EXPECT(&io, p, np, SS_ERR_NULL); io = good;
      io.v = NULL; EXPECT(&io, p, np, SS_ERR_NULL); io = good;
      io.out = NULL; EXPECT(&io, p, np, SS_ERR_NULL); io = good;
      io.scratch = NULL; EXPECT(&io, p, np, SS_ERR_NULL); io = good;
      io.n = 0; EXPECT(&io, p, np, SS_ERR_EMPTY); io = good;
      io.m = 0; EXPECT(&io, p, np, SS_ERR_EMPTY); io = good;
      io.d = 0; EXPECT(&io, p, np, SS_ERR_EMPTY); io = good;
      io.dv = 0; EXPECT(&io, p, np, SS_ERR_EMPTY); io = good;
      io.d = SS_ATTN_MAX_DIM + H; EXPECT(&io, p, np, SS_ERR_TOO_LARGE); io = good;
      io.dv = SS_ATTN_MAX_DIM + H; EXPECT(&io, p, np, SS_ERR_TOO_LARGE); io = good;
      io.n = SS_MAX_N; EXPECT(&io, p, np, SS_ERR_TOO_LARGE); io = good;
      io.n = (size_t)-1; io.m = (size_t)-1; EXPECT(&io, p, np, SS_ERR_TOO_LARGE); io = good;
      io.heads = H + 1; EXPECT(&io, p, np, SS_ERR_LENGTH); io = good;
      io.d = D + 1; EXPECT(&io, p, np, SS_ERR_LENGTH); io = good;
      EXPECT(&io, p, np + 1, SS_ERR_PARAM_COUNT);
      EXPECT(&io, p, np - 1, SS_ERR_PARAM_COUNT);
      EXPECT(&io, NULL, np, SS_ERR_NULL);
      memset(mask, 0, M);
      EXPECT(&io, p, np, SS_ERR_ALL_MASKED);
      memset(mask, 1, M);
      if (exact(k)) {
        io.normalizer = NULL; EXPECT(&io, p, np, SS_ERR_NULL); io = good;
        io.normalizer = logp; EXPECT(&io, p, np, SS_ERR_DOMAIN); io = good;
        io.normalizer = other; EXPECT(&io, p, np, SS_ERR_FAMILY); io = good;
        io.norm_nparams = 1; EXPECT(&io, p, np, SS_ERR_PARAM_COUNT); io = good;
      }
      const size_t nc = cf_invalid_cases(k, M, cases, cap);
      cnt.cases += nc;
      for (size_t c = 0; c < nc; c++) {
        if (cases[c].param != hi) cases[c].p[hi] = H;
        const ss_status s = ss_attend(k, impl, &io, cases[c].p, np);
        ss_test_count(2);
        /* heads out of range is a range error; any other invalid parameter
           with heads valid, too (past n has no meaning here) */
        if (cases[c].want == SS_ERR_PARAM_RANGE && s != SS_ERR_PARAM_RANGE) {
          ss_test_fail(__FILE__, __LINE__, "%s %s: %s", k->name, cases[c].what, ss_status_name(s));
          ok = false;
        }
        /* the scratch size of invalid parameters: 0, without UB */
        if (cases[c].want == SS_ERR_PARAM_RANGE && ss_attention_scratch_size(k, &io, cases[c].p) != 0) {
          ss_test_fail(__FILE__, __LINE__, "%s %s: scratch size %zu", k->name, cases[c].what,
                       ss_attention_scratch_size(k, &io, cases[c].p));
          ok = false;
        }
      }
#undef EXPECT
    }
    ss_attention_io huge = good;
    huge.m = (size_t)-1 / 2;
    if (ss_attention_scratch_size(k, &huge, p) != 0 || ss_attention_scratch_size(k, NULL, p) != 0 ||
        ss_attention_scratch_size(k, &good, NULL) != 0) {
      ss_test_fail(__FILE__, __LINE__, "%s: scratch size of an impossible shape", k->name);
      ok = false;
    }
    all_ok &= ok;
  }
  cf_report("attention bad inputs", &cnt);
  CHECK(all_ok, "see above");
}
