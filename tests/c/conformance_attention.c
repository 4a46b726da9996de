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
 *   - bad inputs get their status: the shared battery through attention's
 *     adapter (family_adapter.h: NaN / +-Inf in Q, K or V, NULL pointers,
 *     n = 0 and too large, every invalid parameter, wrong count, impls;
 *     nothing written), then the shapes, masks and normalizers only
 *     attention has, and ss_attention_scratch_size is 0 for parameters it
 *     cannot size (never undefined behaviour).
 */
#include "family_adapter.h"

#define ATT_REL 0x1p-14

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
   weights; linear attention takes none (one NULL). */
typedef struct {
  const ss_kernel_info *norms[64];
  size_t nn;
} att_sweep;

static void sweep_begin(const ss_kernel_info *k, void *ctx) {
  att_sweep *w = ctx;
  w->nn = 0;
  if (!exact(k)) {
    w->norms[w->nn++] = NULL;
    return;
  }
  CF_FOR_EACH_KERNEL(nk, SS_FAMILY_NORMALIZER)
    if (nk->output != SS_OUTPUT_LOG_PROBS && w->nn < 64) w->norms[w->nn++] = nk;
}

/* The params sweep's shapes: n queries (the sweep's lengths) against m keys. */
static const size_t PARAM_NS[] = {1, 3, 6, 9}, PARAM_MS[] = {1, 5, 6, 4};

/* One case on one shape: every normalizer on the first shape, one (in turn)
   on the others. A case with a large count (heads, features >= 512) costs
   up to 2^24 feature draws per call: the first shape only, two kinds. */
static bool params_run(const cf_run *r, void *ctx, cf_count *cnt) {
  const att_sweep *w = ctx;
  const ss_kernel_info *k = r->k;
  const long hi = cf_param_index(k, "heads");
  const size_t heads = hi >= 0 ? (size_t)r->p[hi] : 1;
  const size_t dh = heads > SS_ATTN_MAX_DIM / 3 ? 1 : 3;
  bool heavy = false;
  for (size_t i = 0; i < k->nparams; i++)
    heavy |= k->params[i].type == SS_PARAM_INT && r->p[i] >= 512 && k->params[i].max <= SS_ATTN_MAX_DIM;
  if (heavy && (r->t > 0 || (r->kind != CF_NORMAL && r->kind != CF_HUGE))) return true;
  for (size_t u = 0; u < w->nn; u++) {
    if (r->t > 0 && u != (r->c + (size_t)r->kind) % w->nn) continue;
    char what[200];
    snprintf(what, sizeof what, "[%s, %s, %s]", r->label, cf_kind_name[r->kind],
             w->norms[u] ? w->norms[u]->name : "-");
    if (!run_shape(k, w->norms[u], r->n, PARAM_MS[r->t], heads > 64 ? 1 : dh, r->p, r->kind,
                   (r->c + r->t) % 2 == 1, r->seed, what, cnt))
      return false;
  }
  return true;
}

TEST(conformance_attention_params) {
  att_sweep w;
  const cf_sweep s = {.family = SS_FAMILY_ATTENTION, .run = params_run, .ctx = &w,
                      .begin = sweep_begin, .seed_stride = 31, .cases_at = 6};
  CHECK(CF_PARAMS_SWEEP("attention params", &s, PARAM_NS, 1100, 3, 4), "see above");
}

/* n = m = 1 .. CF_SWEEP_N with the defaults, a normalizer in turn; at
   CF_LARGE_N the two long shapes, 1 query against CF_LARGE_N keys and
   CF_LARGE_N queries against 1 key, on normal inputs (and a padding mask). */
static bool lengths_run(const cf_run *r, void *ctx, cf_count *cnt) {
  const att_sweep *w = ctx;
  const bool large = r->n == CF_LARGE_N;
  if (large && r->kind != CF_NORMAL && r->kind != CF_MASKED) return true;
  for (size_t t = large ? CF_SWEEP_N + 1 : r->n; t <= (large ? CF_SWEEP_N + 2 : r->n); t++) {
    const size_t n = large ? (t == CF_SWEEP_N + 1 ? 1 : CF_LARGE_N) : t;
    const size_t m = large ? (t == CF_SWEEP_N + 1 ? CF_LARGE_N : 1) : t;
    double p[CF_MAX_PARAMS];
    cf_defaults(r->k, m, p);
    const ss_kernel_info *nk = w->norms[(t + (size_t)r->kind) % w->nn];
    char what[120];
    snprintf(what, sizeof what, "[defaults, %s, %s]", cf_kind_name[r->kind], nk ? nk->name : "-");
    if (!run_shape(r->k, nk, n, m, 2, p, r->kind, r->kind % 2 == 1, 7 * t + (uint64_t)r->kind,
                   what, cnt))
      return false;
  }
  return true;
}

TEST(conformance_attention_lengths) {
  att_sweep w;
  const cf_sweep s = {.family = SS_FAMILY_ATTENTION, .run = lengths_run, .ctx = &w,
                      .begin = sweep_begin, .length_seed = CF_SEED_BY_KIND,
                      .adapter = &cf_attention_adapter};
  CHECK(cf_lengths_sweep("attention lengths", &s), "see above");
}

/* ---- bad inputs ------------------------------------------------------------ */

/* One call on io: its status. */
static bool expect_io(const ss_kernel_info *k, ss_impl impl, const ss_attention_io *io,
                      const double *p, size_t np, ss_status want, const char *what) {
  ss_test_count(1);
  const ss_status s = ss_attend(k, impl, io, p, np);
  if (s != want) {
    ss_test_fail(__FILE__, __LINE__, "%s %s %s: got %s, want %s", k->name, ss_impl_name(impl), what,
                 ss_status_name(s), ss_status_name(want));
    return false;
  }
  return true;
}

/* Attention's own bad inputs, after the shared battery (NaN / +-Inf in Q,
   K, V, NULL Q, K, V, out, n = 0 and too large, every invalid parameter,
   wrong count, impls): the other shapes (m, d, dv empty or too large, heads
   not matching or not dividing d), a NULL io or scratch, all keys masked, a
   missing or wrong normalizer, and ss_attention_scratch_size 0 for what it
   cannot size (never undefined behaviour). Two heads here: rows of n x d. */
static bool attention_extra(const cf_adapter *a, const ss_kernel_info *k, ss_impl impl,
                            float *const rows[CF_ROWS], size_t N, const double *p1, size_t np) {
  (void)a;
  enum { H = 2, D = CF_ATT_D };
  static float out[CF_OUT_N], attn[H * CF_OUT_N], scratch[1 << 16];
  const ss_kernel_info *logp = NULL, *other = NULL;
  for (size_t i = 0; i < ss_kernel_count(); i++) {
    const ss_kernel_info *nk = ss_kernel_at(i);
    if (nk->family == SS_FAMILY_NORMALIZER && nk->output == SS_OUTPUT_LOG_PROBS) logp = nk;
    if (nk->family != SS_FAMILY_NORMALIZER && nk->family != SS_FAMILY_ATTENTION) other = nk;
  }
  const long hi = cf_param_index(k, "heads");
  if (!logp || !other || hi < 0) {
    ss_test_fail(__FILE__, __LINE__, "%s: no heads parameter, or the registry lacks a normalizer kind",
                 k->name);
    return false;
  }
  double p[CF_MAX_PARAMS + 1];
  memcpy(p, p1, (np + 1) * sizeof *p);
  p[hi] = H;
  uint8_t mask[CF_OUT_N];
  memset(mask, 1, N);
  const ss_attention_io good = {rows[0], rows[1], rows[2], N, N, D, D, H, mask,
                                cf_attention_normalizer(), NULL, 0, out, attn, scratch};
  bool ok = true;
  if (ss_attention_scratch_size(k, &good, p) > sizeof scratch / 4) {
    ss_test_fail(__FILE__, __LINE__, "%s: scratch size %zu", k->name, ss_attention_scratch_size(k, &good, p));
    ok = false;
  }
  ss_attention_io io = good;
  /* the valid call works (linear attention may answer SS_ERR_DOMAIN, a
     random-feature estimate of 0 / 0; see run_shape) */
  ss_test_count(1);
  const ss_status sv = ss_attend(k, impl, &io, p, np);
  if (sv != SS_OK && !(sv == SS_ERR_DOMAIN && k->role == SS_ROLE_LINEAR_ATTENTION)) {
    ss_test_fail(__FILE__, __LINE__, "%s %s valid: %s", k->name, ss_impl_name(impl), ss_status_name(sv));
    ok = false;
  }
  ok &= expect_io(k, impl, NULL, p, np, SS_ERR_NULL, "io NULL");
  io.scratch = NULL; ok &= expect_io(k, impl, &io, p, np, SS_ERR_NULL, "scratch NULL"); io = good;
  io.m = 0; ok &= expect_io(k, impl, &io, p, np, SS_ERR_EMPTY, "m = 0"); io = good;
  io.d = 0; ok &= expect_io(k, impl, &io, p, np, SS_ERR_EMPTY, "d = 0"); io = good;
  io.dv = 0; ok &= expect_io(k, impl, &io, p, np, SS_ERR_EMPTY, "dv = 0"); io = good;
  io.d = SS_ATTN_MAX_DIM + H; ok &= expect_io(k, impl, &io, p, np, SS_ERR_TOO_LARGE, "d too large"); io = good;
  io.dv = SS_ATTN_MAX_DIM + H; ok &= expect_io(k, impl, &io, p, np, SS_ERR_TOO_LARGE, "dv too large"); io = good;
  io.n = SS_MAX_N; ok &= expect_io(k, impl, &io, p, np, SS_ERR_TOO_LARGE, "n = SS_MAX_N"); io = good;
  io.heads = H + 1; ok &= expect_io(k, impl, &io, p, np, SS_ERR_LENGTH, "heads not the parameter"); io = good;
  io.d = D + 1; ok &= expect_io(k, impl, &io, p, np, SS_ERR_LENGTH, "heads not dividing d"); io = good;
  memset(mask, 0, N);
  ok &= expect_io(k, impl, &io, p, np, SS_ERR_ALL_MASKED, "all keys masked");
  memset(mask, 1, N);
  if (exact(k)) {
    io.normalizer = NULL; ok &= expect_io(k, impl, &io, p, np, SS_ERR_NULL, "normalizer NULL"); io = good;
    io.normalizer = logp; ok &= expect_io(k, impl, &io, p, np, SS_ERR_DOMAIN, "log-probabilities"); io = good;
    io.normalizer = other; ok &= expect_io(k, impl, &io, p, np, SS_ERR_FAMILY, "not a normalizer"); io = good;
    io.norm_nparams = 1; ok &= expect_io(k, impl, &io, p, np, SS_ERR_PARAM_COUNT, "normalizer params"); io = good;
  }
  /* the scratch size of invalid parameters: 0, without UB */
  size_t cap;
  cf_case *cases = cf_cases_alloc(&cap);
  const size_t nc = cf_invalid_cases(k, N, cases, cap);
  for (size_t c = 0; c < nc; c++) {
    if (cases[c].param != hi) cases[c].p[hi] = H;
    ss_test_count(1);
    if (cases[c].want == SS_ERR_PARAM_RANGE && ss_attention_scratch_size(k, &io, cases[c].p) != 0) {
      ss_test_fail(__FILE__, __LINE__, "%s %s: scratch size %zu", k->name, cases[c].what,
                   ss_attention_scratch_size(k, &io, cases[c].p));
      ok = false;
    }
  }
  ss_test_free(cases);
  ss_attention_io huge = good;
  huge.m = (size_t)-1 / 2;
  if (ss_attention_scratch_size(k, &huge, p) != 0 || ss_attention_scratch_size(k, NULL, p) != 0 ||
      ss_attention_scratch_size(k, &good, NULL) != 0) {
    ss_test_fail(__FILE__, __LINE__, "%s: scratch size of an impossible shape", k->name);
    ok = false;
  }
  return ok;
}

TEST(conformance_attention_bad_inputs) {
  static const size_t where[] = {0, 14, 28, 39};
  CHECK(CF_FAMILY_BAD_INPUTS(&cf_attention_adapter, 5, where, attention_extra, 0), "see above");
}
