/*
 * The backward pass of exact attention (ss_attend_vjp, sdpa), for every
 * registry normalizer that has a VJP and outputs weights (the registry is
 * iterated, no list), on shapes with causal and padding masks, heads 1, 2
 * and 4, n != m and dv != d:
 *   - dq, dk, dv and the normalizer's parameter gradient against central
 *     differences of a double-accumulated model of the forward: scores in
 *     float64 from the float Q, K (rounded to float once, as the normalizer
 *     takes floats; scale the kernel's float scale), the normalizer's own
 *     float kernel (scalar; its accuracy is its own tests'), out = A V and
 *     L = <dout, out> in float64. The model masks keys by -Inf scores, as
 *     the forward does (softscope.h's masked-row rule), so a gradient that
 *     leaked through a masked key disagrees. Coordinates are drawn at random
 *     (FD_COORDS per tensor); a difference is compared where the central
 *     differences at steps h, h/2, h/4 agree (a support change or kink in
 *     between makes them disagree: skipped and counted, and at least
 *     FD_MIN_SHARE of them must be checked per normalizer). Bound:
 *       |fd - grad| <= FD_TOL |grad| + FD_NOISE G / h
 *     with G = sum over the rows the coordinate moves of |a_ij| |dA_ij|
 *     (1 + |s_ij|): the float rounding of the scores (2^-24 |s|) and of the
 *     weights (a few ulp; the normalizers state <= 2e-6 relative) move L by
 *     at most that share of G, and the difference divides it by h. V enters
 *     L linearly (its difference is exact up to float64 rounding): FD_TOL
 *     alone. Measured worst ratios to these bounds are printed.
 *   - keeping the forward's weights (io->attn) and recomputing them give
 *     the same bits; padding keys get exactly +0 in dk and dv;
 *   - SIMD vs scalar: |simd - scalar| <= SIMD_REL max |scalar| per output
 *     (the normalizers' own VJP bound, 2^-10 of max |dx|, through the
 *     products with K, Q and dout);
 *   - bad inputs get their status, the scratch size is 4 m, and nothing
 *     writes NaN with SS_OK (every output is checked finite).
 */
#include <stdlib.h>
#include <string.h>

#include "common/attn_rules.h"
#include "conformance.h"
#include "fd.h"

#define FD_TOL 2e-3        /* relative part of the difference bound */
#define FD_NOISE 0x1p-21   /* rounding of L per unit of G */
#define FD_STEP 4e-3       /* steps h, h/2, h/4 of the differences */
#define FD_COORDS 24       /* coordinates per tensor and case */
#define FD_MIN_SHARE 0.5   /* at least this share of the differences is checked */
#define SIMD_REL 0x1p-14   /* SIMD vs scalar, share of the largest |gradient| */

static const ss_kernel_info *SDPA(void) { return ss_kernel_find("sdpa", SS_FAMILY_ATTENTION); }

/* The normalizers exact attention's backward runs with: weights out, a VJP. */
static bool trainable(const ss_kernel_info *nk) {
  return nk->family == SS_FAMILY_NORMALIZER && nk->output != SS_OUTPUT_LOG_PROBS && nk->has_backward;
}

typedef struct {
  size_t n, m, d, dv, heads;
  bool causal, pad;
} shape;

static const shape SHAPES[] = {
    {5, 7, 8, 12, 1, true, false},  /* n < m, causal aligned at the end */
    {6, 4, 8, 4, 2, false, true},   /* n > m, a padding key */
    {7, 9, 16, 8, 4, true, true},   /* both masks, four heads */
    {3, 6, 6, 9, 3, false, false},  /* no mask, dv / heads = 3 */
};

typedef struct {
  const shape *S;
  float *q, *k, *v, *dout, *attn, *out, *scratch;
  uint8_t *mask;
  const ss_kernel_info *nk;
  double np[CF_MAX_PARAMS];
} problem;

static void fill(float *x, size_t len, ss_rng *r, double scale) {
  for (size_t i = 0; i < len; i++) x[i] = (float)(scale * ss_rng_normal(r));
}

static problem make(const shape *S, const ss_kernel_info *nk, uint64_t seed) {
  problem P = {.S = S, .nk = nk};
  P.q = ss_test_alloc(S->n * S->d * 4), P.k = ss_test_alloc(S->m * S->d * 4);
  P.v = ss_test_alloc(S->m * S->dv * 4), P.dout = ss_test_alloc(S->n * S->dv * 4);
  P.attn = ss_test_alloc(S->heads * S->n * S->m * 4), P.out = ss_test_alloc(S->n * S->dv * 4);
  P.scratch = ss_test_alloc(4 * S->m * 4 + 64);
  P.mask = ss_test_alloc(S->m);
  ss_rng r = {seed};
  fill(P.q, S->n * S->d, &r, 1.0), fill(P.k, S->m * S->d, &r, 1.0);
  fill(P.v, S->m * S->dv, &r, 1.0), fill(P.dout, S->n * S->dv, &r, 1.0);
  memset(P.mask, 1, S->m);
  if (S->pad) P.mask[1] = 0;
  cf_defaults(nk, S->m, P.np);
  return P;
}

static ss_attention_io io_of(const problem *P, bool keep) {
  const shape *S = P->S;
  return (ss_attention_io){P->q, P->k, P->v, S->n, S->m, S->d, S->dv, S->heads,
                           S->pad ? P->mask : NULL, P->nk, P->np, P->nk->nparams,
                           P->out, keep ? P->attn : NULL, P->scratch};
}

/* sdpa's parameters: heads, scale 0 (1 / sqrt(d_head)), causal. */
static void params3(const shape *S, double p[3]) {
  p[0] = (double)S->heads, p[1] = 0, p[2] = S->causal;
}

/* ---- the double-accumulated model of the forward -------------------------- */

/* L = <dout, A V> in float64 (NAN when the normalizer fails); with rowg, the
   G of each row (heads x n) of the difference bound. m <= 64. */
static double model(const problem *P, const double *np, double *rowg) {
  const shape *S = P->S;
  const size_t dh = S->d / S->heads, dvh = S->dv / S->heads;
  const float scale = (float)(1.0 / sqrt((double)dh)); /* ss_attn_scale's */
  float s[64], a[64];
  double L = 0;
  for (size_t h = 0; h < S->heads; h++)
    for (size_t i = 0; i < S->n; i++) {
      for (size_t j = 0; j < S->m; j++) {
        const bool vis = (!S->pad || P->mask[j]) &&
                         (!S->causal || (long long)j <= (long long)i + (long long)S->m - (long long)S->n);
        double dot = 0;
        for (size_t t = 0; t < dh; t++) dot += (double)P->q[i * S->d + h * dh + t] * P->k[j * S->d + h * dh + t];
        s[j] = vis ? (float)((double)scale * dot) : -INFINITY;
      }
      if (ss_normalize(P->nk, SS_IMPL_SCALAR, s, S->m, np, P->nk->nparams, a) != SS_OK) return NAN;
      double g = 0;
      for (size_t j = 0; j < S->m; j++) {
        double da = 0;
        for (size_t c = 0; c < dvh; c++) da += (double)P->dout[i * S->dv + h * dvh + c] * P->v[j * S->dv + h * dvh + c];
        L += a[j] * da;
        if (s[j] != -INFINITY) g += fabs(a[j] * da) * (1 + fabs(s[j]));
      }
      if (rowg) rowg[h * S->n + i] = g;
    }
  return L;
}

/* ---- finite differences ------------------------------------------------------ */

typedef struct {
  size_t checked, skipped;
  double worst; /* worst |fd - grad| / bound */
  char worst_what[120];
} fd_stats;

/* L of the problem ctx as a function of one of its tensors (moved in place:
   `moved` is P->q, P->k or P->v) or of the normalizer's parameters. */
static double model_of_tensor(const float *moved, size_t len, const void *ctx) {
  (void)moved, (void)len;
  const problem *P = ctx;
  return model(P, P->np, NULL);
}
static double model_of_params(const double *np, size_t count, const void *ctx) {
  (void)count;
  return model(ctx, np, NULL);
}

/* Central differences of L in x[t] at steps h0, h0/2, h0/4 (the float steps
   actually taken). */
static void diffs(const problem *P, float *x, size_t len, size_t t, double h0, double est[3]) {
  for (int e = 0; e < 3; e++) est[e] = fd_central32(model_of_tensor, P, x, len, t, h0 / (1 << e));
}

/* One comparison; false (after reporting) when it fails. g_noise: G of the
   rows moved, 0 for a linear coordinate. */
static bool compare(const char *what, const double est[3], double grad, double g_noise, double h0,
                    fd_stats *st) {
  const double noise = FD_NOISE * g_noise / (h0 / 4) + 1e-12;
  const double tol = FD_TOL * fabs(grad) + noise;
  if (!fd_steady(est, 0.1 * FD_TOL * fabs(grad) + noise)) {
    st->skipped++; /* a support change or kink within the steps */
    return true;
  }
  st->checked++;
  const double r = fabs(est[1] - grad) / tol;
  if (r > st->worst) {
    st->worst = r;
    snprintf(st->worst_what, sizeof st->worst_what, "%s", what);
  }
  if (r > 1) {
    ss_test_fail(__FILE__, __LINE__, "%s: gradient %.9g, differences %.9g %.9g %.9g (bound %.3g)", what,
                 grad, est[0], est[1], est[2], tol);
    return false;
  }
  return true;
}

/* dq, dk, dv and dnorm of one problem against the model's differences. */
static bool fd_check(problem *P, const float *dq, const float *dk, const float *dv, const double *dnorm,
                     uint64_t seed, fd_stats *st) {
  const shape *S = P->S;
  const size_t dh = S->d / S->heads;
  double *rowg = ss_test_alloc(S->heads * S->n * sizeof *rowg), est[3];
  if (!isfinite(model(P, P->np, rowg))) {
    ss_test_fail(__FILE__, __LINE__, "%s: the model's forward failed", P->nk->name);
    return false;
  }
  double gall = 0;
  for (size_t t = 0; t < S->heads * S->n; t++) gall += rowg[t];
  ss_rng r = {seed};
  char what[160];
  for (int c = 0; c < 3 * FD_COORDS; c++) {
    const int tensor = c % 3;
    float *x = tensor == 0 ? P->q : tensor == 1 ? P->k : P->v;
    const float *grad = tensor == 0 ? dq : tensor == 1 ? dk : dv;
    const size_t len = tensor == 0 ? S->n * S->d : tensor == 1 ? S->m * S->d : S->m * S->dv;
    const size_t t = (size_t)(ss_rng_u64(&r) % len);
    double g_noise = 0;
    if (tensor == 0) g_noise = rowg[(t % S->d / dh) * S->n + t / S->d]; /* row (h, i) */
    if (tensor == 1)
      for (size_t i = 0; i < S->n; i++) g_noise += rowg[(t % S->d / dh) * S->n + i]; /* head h's rows */
    snprintf(what, sizeof what, "%s %s[%zu] (n %zu m %zu d %zu dv %zu heads %zu causal %d pad %d)", P->nk->name,
             tensor == 0 ? "dq" : tensor == 1 ? "dk" : "dv", t, S->n, S->m, S->d, S->dv, S->heads, S->causal,
             S->pad);
    diffs(P, x, len, t, FD_STEP, est);
    if (!compare(what, est, grad[t], g_noise, FD_STEP, st)) return false;
  }
  /* the normalizer's float parameters: every row moves */
  for (size_t t = 0; dnorm && t < P->nk->nparams; t++) {
    const ss_param_info *pi = &P->nk->params[t];
    if (pi->type != SS_PARAM_FLOAT) {
      if (dnorm[t] != 0.0) {
        ss_test_fail(__FILE__, __LINE__, "%s: gradient of int/bool %s = %g", P->nk->name, pi->name, dnorm[t]);
        return false;
      }
      continue;
    }
    const double p0 = P->np[t], h0 = FD_STEP * fmax(fabs(p0), 1.0);
    if (!(p0 - h0 > pi->min && p0 + h0 < pi->max)) continue;
    for (int e = 0; e < 3; e++) est[e] = fd_central64(model_of_params, P, P->np, P->nk->nparams, t, h0 / (1 << e));
    snprintf(what, sizeof what, "%s d/d%s (n %zu m %zu heads %zu causal %d pad %d)", P->nk->name, pi->name, S->n,
             S->m, S->heads, S->causal, S->pad);
    if (!compare(what, est, dnorm[t], gall, h0, st)) return false;
  }
  return true;
}

/* ---- the tests ------------------------------------------------------------------ */

static bool all_finite(const float *x, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isfinite(x[i])) return false;
  return true;
}

static double max_abs(const float *x, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
  return m;
}

TEST(attention_backward_matches_finite_differences) {
  const ss_kernel_info *K = SDPA();
  size_t tried = 0;
  for (size_t ki = 0; ki < ss_kernel_count(); ki++) {
    const ss_kernel_info *nk = ss_kernel_at(ki);
    if (!trainable(nk)) continue;
    tried++;
    fd_stats st = {0};
    for (size_t c = 0; c < sizeof SHAPES / sizeof SHAPES[0]; c++) {
      const shape *S = &SHAPES[c];
      problem P = make(S, nk, 100 + 7 * c + ki);
      double p[3];
      params3(S, p);
      float *dq = ss_test_alloc(S->n * S->d * 4), *dk = ss_test_alloc(S->m * S->d * 4),
            *dv = ss_test_alloc(S->m * S->dv * 4);
      double dnorm[CF_MAX_PARAMS];
      ss_attention_io io = io_of(&P, true);
      CHECK_STATUS(ss_attend(K, SS_IMPL_SCALAR, &io, p, 3), SS_OK);
      CHECK_STATUS(ss_attend_vjp(K, SS_IMPL_SCALAR, &io, p, 3, P.dout, dq, dk, dv,
                                 nk->has_param_backward ? dnorm : NULL),
                   SS_OK);
      CHECK(all_finite(dq, S->n * S->d) && all_finite(dk, S->m * S->d) && all_finite(dv, S->m * S->dv),
            "%s: a gradient is not finite", nk->name);
      if (S->pad)
        for (size_t t = 0; t < S->d; t++)
          CHECK(dk[1 * S->d + t] == 0.0f && !signbit(dk[1 * S->d + t]), "%s: padding key dk = %g", nk->name,
                dk[S->d + t]);
      if (S->pad)
        for (size_t t = 0; t < S->dv; t++)
          CHECK(dv[1 * S->dv + t] == 0.0f && !signbit(dv[1 * S->dv + t]), "%s: padding key dv = %g", nk->name,
                dv[S->dv + t]);
      if (!fd_check(&P, dq, dk, dv, nk->has_param_backward ? dnorm : NULL, 7 + c, &st)) return;
    }
    printf("    %-22s differences checked %zu, skipped %zu; worst %.3f of the bound (%s)\n", nk->name, st.checked,
           st.skipped, st.worst, st.worst_what);
    CHECK(st.checked >= FD_MIN_SHARE * (double)(st.checked + st.skipped), "%s: only %zu of %zu differences smooth",
          nk->name, st.checked, st.checked + st.skipped);
  }
  CHECK(tried >= 15, "most normalizers have a VJP (%zu)", tried);
}

TEST(attention_backward_kept_weights_equal_recomputed_and_simd_vs_scalar) {
  const ss_kernel_info *K = SDPA();
  double worst = 0;
  char worst_what[80] = "";
  for (size_t ki = 0; ki < ss_kernel_count(); ki++) {
    const ss_kernel_info *nk = ss_kernel_at(ki);
    if (!trainable(nk)) continue;
    for (size_t c = 0; c < sizeof SHAPES / sizeof SHAPES[0]; c++) {
      const shape *S = &SHAPES[c];
      problem P = make(S, nk, 300 + 5 * c + ki);
      double p[3];
      params3(S, p);
      const size_t nq = S->n * S->d, nkk = S->m * S->d, nv = S->m * S->dv;
      float *g[SS_IMPL_COUNT][3], *g2[3];
      double dn[SS_IMPL_COUNT][CF_MAX_PARAMS], dn2[CF_MAX_PARAMS];
      for (int t = 0; t < 3; t++) g2[t] = ss_test_alloc((t == 0 ? nq : t == 1 ? nkk : nv) * 4);
      double *dnp = nk->has_param_backward ? dn2 : NULL;
      FOR_EACH_IMPL(impl) {
        for (int t = 0; t < 3; t++) g[impl][t] = ss_test_alloc((t == 0 ? nq : t == 1 ? nkk : nv) * 4);
        ss_attention_io kept = io_of(&P, true), fresh = io_of(&P, false);
        CHECK_STATUS(ss_attend(K, impl, &kept, p, 3), SS_OK);
        CHECK_STATUS(ss_attend_vjp(K, impl, &kept, p, 3, P.dout, g[impl][0], g[impl][1], g[impl][2],
                                   dnp ? dn[impl] : NULL),
                     SS_OK);
        CHECK_STATUS(ss_attend_vjp(K, impl, &fresh, p, 3, P.dout, g2[0], g2[1], g2[2], dnp), SS_OK);
        CHECK(!memcmp(g2[0], g[impl][0], nq * 4) && !memcmp(g2[1], g[impl][1], nkk * 4) &&
                  !memcmp(g2[2], g[impl][2], nv * 4),
              "%s %s: kept weights and recomputed ones give other gradients", nk->name, ss_impl_name(impl));
        for (size_t t = 0; dnp && t < nk->nparams; t++)
          CHECK(dn2[t] == dn[impl][t], "%s: dnorm differs with kept weights", nk->name);
        if (impl == SS_IMPL_SCALAR) continue;
        for (int t = 0; t < 3; t++) {
          const size_t len = t == 0 ? nq : t == 1 ? nkk : nv;
          const double mx = max_abs(g[SS_IMPL_SCALAR][t], len);
          for (size_t e = 0; e < len; e++) {
            const double r = fabs((double)g[impl][t][e] - g[SS_IMPL_SCALAR][t][e]) / (SIMD_REL * mx + 1e-30);
            if (r > worst) worst = r, snprintf(worst_what, sizeof worst_what, "%s d%c", nk->name, "qkv"[t]);
            CHECK(r <= 1, "%s shape %zu: SIMD d%c[%zu] %.9g, scalar %.9g", nk->name, c, "qkv"[t], e, g[impl][t][e],
                  g[SS_IMPL_SCALAR][t][e]);
          }
        }
        for (size_t t = 0; dnp && t < nk->nparams; t++)
          CHECK(fabs(dn[impl][t] - dn[SS_IMPL_SCALAR][t]) <= SIMD_REL * fabs(dn[SS_IMPL_SCALAR][t]) + 1e-9,
                "%s: SIMD dnorm[%zu] %.9g, scalar %.9g", nk->name, t, dn[impl][t], dn[SS_IMPL_SCALAR][t]);
      }
    }
  }
  printf("    SIMD vs scalar: worst %.3g of the bound (%s)\n", worst, worst_what);
}

TEST(attention_backward_bad_inputs) {
  const ss_kernel_info *K = SDPA(), *soft = ss_kernel_find("softmax", SS_FAMILY_NORMALIZER);
  const shape S = {4, 5, 8, 8, 2, true, false};
  problem P = make(&S, soft, 9);
  const double p[3] = {2, 0, 1};
  float dq[4 * 8], dk[5 * 8], dv[5 * 8];
  double dn[CF_MAX_PARAMS];
  ss_attention_io io = io_of(&P, true);
  CHECK(ss_attention_vjp_scratch_size(K, &io, p) == 4 * S.m, "sdpa backward scratch: 4 m");
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_attend(K, impl, &io, p, 3), SS_OK);
    CHECK_STATUS(ss_attend_vjp(K, impl, &io, p, 3, P.dout, dq, dk, dv, dn), SS_OK); /* no params: nothing to write */
    ss_attention_io b = io;
    CHECK_STATUS(ss_attend_vjp(K, impl, NULL, p, 3, P.dout, dq, dk, dv, NULL), SS_ERR_NULL);
    CHECK_STATUS(ss_attend_vjp(K, impl, &io, p, 3, NULL, dq, dk, dv, NULL), SS_ERR_NULL);
    CHECK_STATUS(ss_attend_vjp(K, impl, &io, p, 3, P.dout, NULL, dk, dv, NULL), SS_ERR_NULL);
    CHECK_STATUS(ss_attend_vjp(K, impl, &io, p, 3, P.dout, dq, NULL, dv, NULL), SS_ERR_NULL);
    CHECK_STATUS(ss_attend_vjp(K, impl, &io, p, 3, P.dout, dq, dk, NULL, NULL), SS_ERR_NULL);
    b.scratch = NULL;
    CHECK_STATUS(ss_attend_vjp(K, impl, &b, p, 3, P.dout, dq, dk, dv, NULL), SS_ERR_NULL);
    b = io, b.out = NULL; /* not used by the backward */
    CHECK_STATUS(ss_attend_vjp(K, impl, &b, p, 3, P.dout, dq, dk, dv, NULL), SS_OK);
    /* the checks shared with ss_attend */
    b = io, b.heads = 1;
    CHECK_STATUS(ss_attend_vjp(K, impl, &b, p, 3, P.dout, dq, dk, dv, NULL), SS_ERR_LENGTH);
    CHECK_STATUS(ss_attend_vjp(K, impl, &io, p, 2, P.dout, dq, dk, dv, NULL), SS_ERR_PARAM_COUNT);
    b = io, b.m = 2; /* 4 causal queries, 2 keys: the first sees none */
    CHECK_STATUS(ss_attend_vjp(K, impl, &b, p, 3, P.dout, dq, dk, dv, NULL), SS_ERR_ALL_MASKED);
    b = io, b.normalizer = ss_kernel_find("log_softmax", SS_FAMILY_NORMALIZER);
    CHECK_STATUS(ss_attend_vjp(K, impl, &b, p, 3, P.dout, dq, dk, dv, NULL), SS_ERR_DOMAIN);
    P.q[3] = NAN;
    CHECK_STATUS(ss_attend_vjp(K, impl, &io, p, 3, P.dout, dq, dk, dv, NULL), SS_ERR_NAN);
    P.q[3] = 0.5f;
    /* dout and the kept weights */
    P.dout[5] = NAN;
    CHECK_STATUS(ss_attend_vjp(K, impl, &io, p, 3, P.dout, dq, dk, dv, NULL), SS_ERR_NAN);
    P.dout[5] = INFINITY;
    CHECK_STATUS(ss_attend_vjp(K, impl, &io, p, 3, P.dout, dq, dk, dv, NULL), SS_ERR_NONFINITE);
    P.dout[5] = 1;
    const float keep = P.attn[7];
    P.attn[7] = NAN;
    CHECK_STATUS(ss_attend_vjp(K, impl, &io, p, 3, P.dout, dq, dk, dv, NULL), SS_ERR_NAN);
    P.attn[7] = keep;
    /* a normalizer without a VJP (softmax's descriptor without its backward) */
    ss_kernel_info nob = *soft;
    nob.has_backward = false;
    b = io, b.normalizer = &nob;
    CHECK_STATUS(ss_attend_vjp(K, impl, &b, p, 3, P.dout, dq, dk, dv, NULL), SS_ERR_NO_BACKWARD);
    /* a parameter gradient asked of a normalizer with parameters but none */
    const ss_kernel_info *temp = ss_kernel_find("softmax_temperature", SS_FAMILY_NORMALIZER);
    CHECK(temp && temp->has_backward && !temp->has_param_backward && temp->nparams == 1,
          "softmax_temperature: the parameter this test needs");
    const double tp[1] = {0.7};
    b = io, b.normalizer = temp, b.norm_params = tp, b.norm_nparams = 1, b.attn = NULL;
    CHECK_STATUS(ss_attend_vjp(K, impl, &b, p, 3, P.dout, dq, dk, dv, dn), SS_ERR_NO_BACKWARD);
    CHECK_STATUS(ss_attend_vjp(K, impl, &b, p, 3, P.dout, dq, dk, dv, NULL), SS_OK);
    /* dout . v beyond FLT_MAX: SS_ERR_DOMAIN, never Inf with SS_OK */
    for (size_t t = 0; t < S.n * S.dv; t++) P.dout[t] = 3e38f;
    CHECK_STATUS(ss_attend_vjp(K, impl, &io, p, 3, P.dout, dq, dk, dv, NULL), SS_ERR_DOMAIN);
    ss_rng r = {9};
    fill(P.dout, S.n * S.dv, &r, 1.0);
  }
  /* attention kernels without a backward pass */
  for (size_t ki = 0; ki < ss_kernel_count(); ki++) {
    const ss_kernel_info *k = ss_kernel_at(ki);
    if (k->family != SS_FAMILY_ATTENTION || k->attend_vjp[SS_IMPL_SCALAR]) continue;
    double pk[CF_MAX_PARAMS];
    cf_defaults(k, S.m, pk);
    pk[cf_param_index(k, "heads")] = 2;
    CHECK_STATUS(ss_attend_vjp(k, SS_IMPL_SCALAR, &io, pk, k->nparams, P.dout, dq, dk, dv, NULL),
                 SS_ERR_UNSUPPORTED);
    CHECK(ss_attention_vjp_scratch_size(k, &io, pk) == 0, "%s: backward scratch of no backward", k->name);
  }
  /* every registry normalizer's parameters fit the row gradient */
  for (size_t ki = 0; ki < ss_kernel_count(); ki++)
    if (ss_kernel_at(ki)->family == SS_FAMILY_NORMALIZER)
      CHECK(ss_kernel_at(ki)->nparams <= SS_ATTN_NORM_PARAMS_MAX, "%s: too many parameters", ss_kernel_at(ki)->name);
}

/* dout . v whose float partial sums overflow in one summation order and not
   in another: dout_i = (3e38, 3e38, -3e38, -3e38, -3e38, -3e38, 3e38, 3e38),
   v_j = 1 (exactly 0). Before, the scalar dot (in index order) overflowed
   (SS_ERR_DOMAIN) while the SIMD one (lanes 4 apart) did not (SS_OK): both
   impls now take such rows in double and agree on SS_OK (dA = 0, so dq
   and dk are 0; dv_j = sum_i a_ij dout_i stays finite). */
TEST(regress_attention_vjp_dout_dot_overflow_order) {
  const ss_kernel_info *K = SDPA(), *soft = ss_kernel_find("softmax", SS_FAMILY_NORMALIZER);
  const shape S = {2, 3, 8, 8, 1, false, false};
  problem P = make(&S, soft, 21);
  static const float row[8] = {3e38f, 3e38f, -3e38f, -3e38f, -3e38f, -3e38f, 3e38f, 3e38f};
  for (size_t i = 0; i < S.n; i++) memcpy(P.dout + i * S.dv, row, sizeof row);
  for (size_t t = 0; t < S.m * S.dv; t++) P.v[t] = 1.0f;
  for (size_t t = 0; t < S.n * S.d; t++) P.q[t] *= 0.01f; /* dS = 0 here: dq, dk stay finite */
  const double p[3] = {1, 0, 0};
  float dq[16], dk[24], dv[24];
  ss_attention_io io = io_of(&P, false);
  FOR_EACH_IMPL(impl) {
    CHECK_STATUS(ss_attend_vjp(K, impl, &io, p, 3, P.dout, dq, dk, dv, NULL), SS_OK);
    CHECK(all_finite(dq, 16) && all_finite(dk, 24), "%s: gradient not finite", ss_impl_name(impl));
  }
}
