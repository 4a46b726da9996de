/*
 * libFuzzer target: every registered attention kernel through ss_attend,
 * kernel by registry index, exact attention with any registered normalizer
 * (by index, its own parameters fuzzed too), fuzzed shapes (heads that may
 * not match or divide d), padding masks, raw Q, K, V bits, the attention
 * matrix asked for or not, scratch sized by ss_attention_scratch_size.
 * Properties: no sanitizer report; the scratch size is 0 for every call
 * that is rejected on its parameters or shape and enough for every call
 * that succeeds; scalar and SIMD give the same status; on SS_OK out and
 * the weights are finite and invisible keys get exactly +0. Random-feature
 * kernels also through ss_attention_kernel_estimate on the same io: the
 * same status in both impls, no NaN on SS_OK, never SS_OK where the scratch
 * size is 0. The backward pass (ss_attend_vjp, kernels that have one) after
 * a successful forward, with fuzzed dout and the forward's weights kept or
 * not: the same status in both impls but for SS_OK against SS_ERR_DOMAIN
 * (softscope.h: a gradient near float's range, decided by a normalizer
 * VJP's rounding; corpus regress-multimax-vjp-slope-cancellation), finite
 * gradients on SS_OK, exactly +0 for keys no query sees (padding), never
 * SS_OK with a scratch size of 0.
 *
 * Work budget: the in-range feature counts are capped so that one input
 * costs at most about FZ_ATT_WORK (rf_work; ~0.7 ms): up to ~780 features
 * at the smallest shapes, fewer at larger ones. An input that fz_large
 * marks has 16 times the budget (the rare large case: 4096 features, the
 * maximum, at the smallest shapes). Without the cap a few inputs of 4096
 * features at d = 64 (seconds each) took most of a run.
 */
#include "fuzz_common.h"

#define FZ_ATT 24
static float q[FZ_ATT * 64], kk[FZ_ATT * 64], v[FZ_ATT * 64], o0[FZ_ATT * 64], o1[FZ_ATT * 64];
static float a0[FZ_ATT * FZ_ATT * 64], a1[FZ_ATT * FZ_ATT * 64];
static uint8_t mask[FZ_ATT];
static double est[FZ_ATT * FZ_ATT * 64];
static float dout[FZ_ATT * 64], gq[2][FZ_ATT * 64], gk[2][FZ_ATT * 64], gv[2][FZ_ATT * 64];

/* The backward pass after a successful forward (io as the forward had it,
   attn: its scalar weights or NULL). */
static void backward(fz *f, const ss_kernel_info *k, ss_attention_io io, const double *p, bool simd) {
  const ss_kernel_info *nk = io.normalizer;
  fz_floats(f, dout, io.n * io.dv);
  const size_t sz = ss_attention_vjp_scratch_size(k, &io, p);
  float *scratch = malloc(sz * 4 + 64);
  FZ_CHECK(scratch, "backward scratch of %zu floats", sz);
  io.scratch = scratch;
  double dn[2][17];
  ss_status s[2];
  for (int impl = 0; impl < (simd ? 2 : 1); impl++)
    s[impl] = ss_attend_vjp(k, (ss_impl)impl, &io, p, k->nparams, dout, gq[impl], gk[impl], gv[impl],
                            nk->has_param_backward ? dn[impl] : NULL);
  free(scratch);
  const bool edge = simd && (s[0] == SS_ERR_DOMAIN || s[1] == SS_ERR_DOMAIN) &&
                    (s[0] == SS_OK || s[1] == SS_OK);
  FZ_CHECK(!simd || s[0] == s[1] || edge, "%s (%s) backward: scalar %s, SIMD %s", k->name, nk->name,
           ss_status_name(s[0]), ss_status_name(s[1]));
  for (int impl = 0; impl < (simd ? 2 : 1); impl++) {
    if (s[impl] != SS_OK) continue;
    FZ_CHECK(sz > 0, "%s: backward SS_OK with a scratch size of 0", k->name);
    FZ_CHECK(fz_finite(gq[impl], io.n * io.d) && fz_finite(gk[impl], io.m * io.d) &&
                 fz_finite(gv[impl], io.m * io.dv),
             "%s (%s): non-finite gradient on SS_OK", k->name, nk->name);
    for (size_t j = 0; j < io.m && io.key_mask; j++)
      for (size_t c = 0; !io.key_mask[j] && c < io.d; c++)
        FZ_CHECK(gk[impl][j * io.d + c] == 0.0f && !signbit(gk[impl][j * io.d + c]), "%s: padding key dk %g",
                 k->name, gk[impl][j * io.d + c]);
  }
}

/* The work of one random-feature call, in units of about 10 ns under
   ASan (the four calls of an input: about 20 ns), fitted to timings of trig
   and hrf: per head, R projections (the parameters named *features) drawn
   (R dh normal draws, ~30 units each) and orthogonalized in blocks of dh
   (~2 R dh^2), the n + m feature rows (R dh each), their products with V
   (F dvh per row, F <= 2 R (1 + a) features, a = angle_features) and the
   pointwise estimate (~2 n m F). 0 for a kernel without features. */
#define FZ_ATT_WORK 0x1p15
static double rf_work(const ss_kernel_info *k, const double *p, size_t n, size_t m, size_t d, size_t dv,
                      size_t heads) {
  double R = 0.0;
  for (size_t i = 0; i < k->nparams; i++)
    if (strstr(k->params[i].name, "features") && isfinite(p[i]) && p[i] > 0) R += p[i];
  if (R == 0.0 || heads == 0) return 0.0;
  const double a = fmax(0.0, ss_param_value(k, p, "angle_features", 0.0));
  const double dh = fmax(1.0, (double)(d / heads)), dvh = (double)(dv / heads), F = 2.0 * R * (1.0 + a);
  const double rows = (double)(n + m);
  return (double)heads * (R * dh * (30.0 + 2.0 * dh + rows) + F * (rows * dvh + 2.0 * (double)(n * m)));
}

/* Caps the in-range feature counts (out-of-range ones stay as drawn: their
   rejection is fuzzed) until rf_work fits `budget`, each scaled by the same
   factor (at least 1). */
static void cap_features(const ss_kernel_info *k, double *p, size_t n, size_t m, size_t d, size_t dv,
                         size_t heads, double budget) {
  for (int round = 0; round < 16; round++) {
    const double w = rf_work(k, p, n, m, d, dv, heads);
    if (w <= budget) return;
    const double scale = fmin(0.5, budget / w);
    for (size_t i = 0; i < k->nparams; i++) {
      const ss_param_info *pi = &k->params[i];
      if (strstr(pi->name, "features") && p[i] >= pi->min && p[i] <= pi->max && p[i] == floor(p[i]))
        p[i] = fmax(pi->min, floor(p[i] * scale));
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz f = {data, size};
  const ss_kernel_info *k = fz_pick(&f, SS_FAMILY_ATTENTION);
  const ss_kernel_info *nkern = fz_pick(&f, SS_FAMILY_NORMALIZER);
  const size_t n = fz_u8(&f) % FZ_ATT, m = fz_u8(&f) % FZ_ATT;
  const size_t d = fz_u8(&f) % 65, dv = fz_u8(&f) % 65;
  double p[17], np[17];
  fz_params(&f, k, m, p);
  fz_params(&f, nkern, m, np);
  long hi = -1;
  for (size_t i = 0; i < k->nparams; i++)
    if (!strcmp(k->params[i].name, "heads")) hi = (long)i;
  FZ_CHECK(hi >= 0, "%s has no heads parameter", k->name);
  size_t heads = (fz_u8(&f) & 1) && isfinite(p[hi]) && p[hi] >= 1 && p[hi] <= 64 ? (size_t)p[hi] : 1 + fz_u8(&f) % 4;
  if (fz_u8(&f) & 1) p[hi] = (double)heads; /* matching, or not */
  fz_floats(&f, q, n * d);
  fz_floats(&f, kk, m * d);
  fz_floats(&f, v, m * dv);
  cap_features(k, p, n, m, d, dv, heads, fz_large(data, size) ? 16 * FZ_ATT_WORK : FZ_ATT_WORK);
  fz_case(k, p, q, n * d);
  fz_show("k", kk, m * d);
  const bool masked = fz_u8(&f) & 1, want_attn = fz_u8(&f) & 1;
  for (size_t j = 0; j < m; j++) mask[j] = !masked || fz_u8(&f) % 4 != 0;
  ss_attention_io io = {q, kk, v, n, m, d, dv, heads, masked ? mask : NULL, nkern, np,
                        nkern->nparams, o0, want_attn ? a0 : NULL, NULL};
  const size_t sz = ss_attention_scratch_size(k, &io, p);
  float *scratch = malloc(sz * 4 + 64);
  FZ_CHECK(scratch, "scratch of %zu floats", sz);
  io.scratch = scratch;
  const bool simd = ss_impl_available(SS_IMPL_SIMD);
  const ss_status s0 = ss_attend(k, SS_IMPL_SCALAR, &io, p, k->nparams);
  if (ss_params_check(k, p, k->nparams) != SS_OK)
    FZ_CHECK(sz == 0, "%s: scratch size %zu for invalid parameters", k->name, sz);
  if (s0 == SS_OK) FZ_CHECK(sz > 0, "%s: SS_OK with a scratch size of 0", k->name);
  io.out = o1, io.attn = want_attn ? a1 : NULL;
  const ss_status s1 = simd ? ss_attend(k, SS_IMPL_SIMD, &io, p, k->nparams) : s0;
  if (k->kernel_estimate[SS_IMPL_SCALAR]) { /* random features: the pointwise estimate, same io */
    const ss_status e0 = ss_attention_kernel_estimate(k, SS_IMPL_SCALAR, &io, p, k->nparams, est);
    if (e0 == SS_OK)
      for (size_t t = 0; t < heads * n * m; t++) FZ_CHECK(!isnan(est[t]), "%s: estimate NaN on SS_OK", k->name);
    const ss_status e1 = simd ? ss_attention_kernel_estimate(k, SS_IMPL_SIMD, &io, p, k->nparams, est) : e0;
    FZ_CHECK(e0 == e1, "%s estimate: scalar %s, SIMD %s", k->name, ss_status_name(e0), ss_status_name(e1));
    if (sz == 0) FZ_CHECK(e0 != SS_OK, "%s: estimate SS_OK with a scratch size of 0", k->name);
  }
  free(scratch);
  FZ_CHECK(s0 == s1, "%s (%s) n=%zu m=%zu d=%zu heads=%zu: scalar %s, SIMD %s", k->name, nkern->name, n,
           m, d, heads, ss_status_name(s0), ss_status_name(s1));
  if (s0 != SS_OK) return 0;
  const bool causal = ss_param_value(k, p, "causal", 0) != 0;
  for (int impl = 0; impl < (simd ? 2 : 1); impl++) {
    const float *o = impl ? o1 : o0, *a = impl ? a1 : a0;
    FZ_CHECK(fz_finite(o, n * dv), "%s: non-finite out on SS_OK", k->name);
    if (!want_attn) continue;
    FZ_CHECK(fz_finite(a, heads * n * m), "%s: non-finite weights on SS_OK", k->name);
    for (size_t h = 0; h < heads; h++)
      for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < m; j++) {
          const bool vis = (!masked || mask[j]) && (!causal || (long long)j <= (long long)i + (long long)m - (long long)n);
          const float w = a[(h * n + i) * m + j];
          FZ_CHECK(vis || (w == 0.0f && !signbit(w)), "%s: invisible key weight %g", k->name, w);
        }
  }
  if (k->attend_vjp[SS_IMPL_SCALAR]) {
    io.attn = want_attn ? a0 : NULL;
    backward(&f, k, io, p, simd);
  }
  return 0;
}
