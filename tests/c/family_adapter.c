#include "family_adapter.h"

#include <stdio.h>

/* ---- the adapters ---------------------------------------------------------- */

static ss_status call_normalizer(const ss_kernel_info *k, ss_impl impl, const float *const rows[CF_ROWS],
                                 size_t n, const double *p, size_t np, cf_outputs *o) {
  return ss_normalize(k, impl, rows[0], n, p, np, o && rows[0] ? o->y : NULL);
}

static ss_status call_loss(const ss_kernel_info *k, ss_impl impl, const float *const rows[CF_ROWS],
                           size_t n, const double *p, size_t np, cf_outputs *o) {
  return ss_loss(k, impl, rows[0], n, p, np, o ? &o->d[0] : NULL, o ? o->y : NULL);
}

static ss_status call_sampler(const ss_kernel_info *k, ss_impl impl, const float *const rows[CF_ROWS],
                              size_t n, const double *p, size_t np, cf_outputs *o) {
  return ss_sample(k, impl, rows[0], n, p, np, o && rows[0] ? o->y : NULL, o ? o->idx : NULL,
                   o ? o->samples : NULL);
}

static ss_status call_quantizer(const ss_kernel_info *k, ss_impl impl, const float *const rows[CF_ROWS],
                                size_t n, const double *p, size_t np, cf_outputs *o) {
  return ss_quantize(k, impl, rows[0], n, p, np, o ? o->codes : NULL, o && rows[0] ? o->y : NULL);
}

static ss_status call_measure(const ss_kernel_info *k, ss_impl impl, const float *const rows[CF_ROWS],
                              size_t n, const double *p, size_t np, cf_outputs *o) {
  return ss_measure(k, impl, rows[0], rows[1], n, p, np, o ? &o->d[0] : NULL);
}

/* w stepped from a copy of rows[0] and a zero state; each of w, the state
   and the scalars copied out only when the call changed it. */
static ss_status call_optimizer(const ss_kernel_info *k, ss_impl impl, const float *const rows[CF_ROWS],
                                size_t n, const double *p, size_t np, cf_outputs *o) {
  float w[CF_OUT_N] = {0}, state[4 * CF_OUT_N] = {0};
  double sc[SS_OPT_SCALARS] = {0};
  if (n <= CF_OUT_N && ss_opt_state_size(k, n) > 4 * CF_OUT_N) return SS_STATUS_COUNT; /* no room */
  const size_t len = n < CF_OUT_N ? n : CF_OUT_N;
  if (rows[0]) memcpy(w, rows[0], len * sizeof *w);
  const ss_status s = ss_optimize(k, impl, rows[0] ? w : NULL, rows[1], n, p, np,
                                  o ? state : NULL, o ? sc : NULL);
  static const float zero_state[4 * CF_OUT_N];
  static const double zero_sc[SS_OPT_SCALARS];
  if (o && rows[0] && memcmp(w, rows[0], len * sizeof *w)) memcpy(o->y, w, sizeof o->y);
  if (o && memcmp(state, zero_state, sizeof state)) memcpy(o->state, state, sizeof state);
  if (o && memcmp(sc, zero_sc, sizeof sc)) memcpy(o->scalars, sc, sizeof sc);
  return s;
}

const ss_kernel_info *cf_attention_normalizer(void) {
  for (size_t i = 0; i < ss_kernel_count(); i++) {
    const ss_kernel_info *nk = ss_kernel_at(i);
    if (nk->family == SS_FAMILY_NORMALIZER && nk->output == SS_OUTPUT_PROBS && nk->nparams == 0)
      return nk;
  }
  return NULL;
}

/* n queries against n keys, CF_ATT_D wide, one head, no padding. */
static ss_status call_attention(const ss_kernel_info *k, ss_impl impl, const float *const rows[CF_ROWS],
                                size_t n, const double *p, size_t np, cf_outputs *o) {
  static float scratch[1 << 16];
  const ss_attention_io io = {rows[0], rows[1], rows[2], n, n, CF_ATT_D, CF_ATT_D, 1, NULL,
                              cf_attention_normalizer(), NULL, 0, o ? o->y : NULL,
                              o ? o->weights : NULL, scratch};
  return ss_attend(k, impl, &io, p, np);
}

const cf_adapter cf_normalizer_adapter = {.family = SS_FAMILY_NORMALIZER, .name = "normalizer",
                                          .call = call_normalizer, .rows = 1};
const cf_adapter cf_loss_adapter = {.family = SS_FAMILY_LOSS, .name = "loss", .call = call_loss,
                                    .rows = 1};
const cf_adapter cf_sampler_adapter = {.family = SS_FAMILY_SAMPLER, .name = "sampler",
                                       .call = call_sampler, .positive = true, .rows = 1};
const cf_adapter cf_quantizer_adapter = {.family = SS_FAMILY_QUANTIZER, .name = "quantizer",
                                         .call = call_quantizer, .positive = true, .rows = 1};
const cf_adapter cf_measure_adapter = {.family = SS_FAMILY_MEASURE, .name = "measure",
                                       .call = call_measure, .rows = 2, .pair_only = true};
const cf_adapter cf_optimizer_adapter = {.family = SS_FAMILY_OPTIMIZER, .name = "optimizer",
                                         .call = call_optimizer, .rows = 2};
const cf_adapter cf_attention_adapter = {.family = SS_FAMILY_ATTENTION, .name = "attention",
                                         .call = call_attention, .rows = 3, .width = CF_ATT_D};

int cf_rows_read(const cf_adapter *a, const ss_kernel_info *k) {
  return a->pair_only && k->input != SS_INPUT_PROBS_PAIR ? 1 : a->rows;
}

size_t cf_row_len(const cf_adapter *a, size_t n) { return n * (a->width ? a->width : 1); }

void cf_fill_rows(const cf_adapter *a, const ss_kernel_info *k, float *const rows[CF_ROWS],
                  size_t n, int kind, uint64_t seed) {
  const size_t len = cf_row_len(a, n);
  cf_fill(rows[0], len, k->input, kind, a->positive, seed);
  for (int r = 1; r < a->rows; r++)
    cf_fill(rows[r], len, k->input, kind == CF_MASKED ? CF_NORMAL : kind, a->positive,
            seed + 99 * (uint64_t)r);
}

/* ---- one bad call ---------------------------------------------------------- */

static void poison_outputs(cf_outputs *o) {
  memset(o, 0, sizeof *o); /* the padding too: outputs_untouched compares bytes */
  cf_poison(o->y, CF_OUT_N);
  cf_poison(o->samples, 4 * CF_OUT_N);
  memset(o->codes, 0x5a, sizeof o->codes);
  memset(o->idx, 0x5a, sizeof o->idx);
  o->d[0] = o->d[1] = -777.0;
  cf_poison(o->weights, CF_OUT_N);
  cf_poison(o->state, 4 * CF_OUT_N);
  for (int i = 0; i < SS_OPT_SCALARS; i++) o->scalars[i] = -777.0;
}

static bool outputs_untouched(const cf_outputs *o) {
  cf_outputs fresh;
  poison_outputs(&fresh);
  return memcmp(o, &fresh, sizeof fresh) == 0;
}

bool cf_expect(const cf_adapter *a, const ss_kernel_info *k, ss_impl impl,
               const float *const rows[CF_ROWS], size_t n, const double *p, size_t np, ss_status want,
               const char *what) {
  ss_test_count(1);
  cf_outputs o;
  poison_outputs(&o);
  const ss_status s = a->call(k, impl, rows, n, p, np, &o);
  const bool untouched = outputs_untouched(&o);
  if (s != want || !untouched) {
    ss_test_fail(__FILE__, __LINE__, "%s %s %s: got %s, want %s%s", k->name, ss_impl_name(impl),
                 what, ss_status_name(s), ss_status_name(want), untouched ? "" : " (written)");
    return false;
  }
  return true;
}

bool cf_expect_empty(const cf_adapter *a, const ss_kernel_info *k, const double *p) {
  static const float z[1] = {0.0f};
  const float *const rows[CF_ROWS] = {z, z, z};
  bool ok = true;
  FOR_EACH_IMPL(impl) ok &= cf_expect(a, k, impl, rows, 0, p, k->nparams, SS_ERR_EMPTY, "n = 0");
  return ok;
}

ss_status cf_nonfinite_status(const ss_kernel_info *k, float v) {
  if (isnan(v)) return SS_ERR_NAN;
  if (v > 0) return k->input == SS_INPUT_LOGITS ? SS_ERR_POS_INF : SS_ERR_NONFINITE;
  return k->input == SS_INPUT_LOGITS ? SS_OK : SS_ERR_NONFINITE;
}

/* ---- the battery ----------------------------------------------------------- */

bool cf_bad_input_battery(const cf_adapter *a, const ss_kernel_info *k, const double *p,
                          size_t np, size_t N, const size_t *where, size_t nwhere,
                          cf_battery_extra extra, size_t *cases) {
  float r0[CF_OUT_N], r1[CF_OUT_N], r2[CF_OUT_N];
  float *const rows[CF_ROWS] = {r0, r1, r2};
  const size_t len = cf_row_len(a, N);
  const float *const *in = (const float *const *)rows;
  size_t cap;
  cf_case *invalid = cf_cases_alloc(&cap);
  bool ok = true;
  const float bad[] = {NAN, INFINITY, -INFINITY};
  static const char *const bad_name[] = {"NaN", "+Inf", "-Inf"};
  FOR_EACH_IMPL(impl) {
    for (int side = 0; side < cf_rows_read(a, k); side++)
      for (size_t w = 0; w < nwhere && ok; w++)
        for (int b = 0; b < 3 && ok; b++) {
          const ss_status want = cf_nonfinite_status(k, bad[b]);
          if (want == SS_OK) continue; /* -Inf logits: masked entries */
          char what[48];
          cf_fill_rows(a, k, rows, N, CF_NORMAL, 5);
          rows[side][where[w]] = bad[b];
          snprintf(what, sizeof what, "%s at %zu", bad_name[b], where[w]);
          ok &= cf_expect(a, k, impl, in, N, p, np, want, what);
          /* NaN comes first, wherever it is */
          rows[side][(where[w] + 9) % len] = NAN;
          snprintf(what, sizeof what, "%s at %zu and NaN", bad_name[b], where[w]);
          ok &= cf_expect(a, k, impl, in, N, p, np, SS_ERR_NAN, what);
        }
    cf_fill_rows(a, k, rows, N, CF_NORMAL, 6);
    for (int r = 0; r < cf_rows_read(a, k); r++) {
      const float *no_row[CF_ROWS] = {r0, r1, r2};
      char what[32];
      no_row[r] = NULL;
      snprintf(what, sizeof what, "row %d NULL", r);
      ok &= cf_expect(a, k, impl, no_row, N, p, np, SS_ERR_NULL, r ? what : "input NULL");
    }
    const ss_status s = a->call(k, impl, in, N, p, np, NULL);
    if (s != SS_ERR_NULL) {
      ss_test_fail(__FILE__, __LINE__, "%s %s: NULL outputs: %s", k->name, ss_impl_name(impl),
                   ss_status_name(s));
      ok = false;
    }
    ok &= cf_expect(a, k, impl, in, 0, p, np, SS_ERR_EMPTY, "n = 0");
    ok &= cf_expect(a, k, impl, in, SS_MAX_N + 1, p, np, SS_ERR_TOO_LARGE, "n = SS_MAX_N + 1");
    ok &= cf_expect(a, k, impl, in, (size_t)-1, p, np, SS_ERR_TOO_LARGE, "n = SIZE_MAX");
    ok &= cf_expect(a, k, impl, in, N, p, np + 1, SS_ERR_PARAM_COUNT, "one parameter too many");
    if (np) {
      ok &= cf_expect(a, k, impl, in, N, p, np - 1, SS_ERR_PARAM_COUNT, "one parameter short");
      ok &= cf_expect(a, k, impl, in, N, NULL, np, SS_ERR_NULL, "params NULL");
    }
    const size_t nc = cf_invalid_cases(k, N, invalid, cap);
    for (size_t c = 0; c < nc && ok; c++)
      ok &= cf_expect(a, k, impl, in, N, invalid[c].p, np, invalid[c].want, invalid[c].what);
    *cases += nc;
    if (extra && ok) {
      cf_fill_rows(a, k, rows, N, CF_NORMAL, 6);
      ok &= extra(a, k, impl, rows, N, p, np);
    }
  }
  cf_fill_rows(a, k, rows, N, CF_NORMAL, 6);
  ok &= cf_expect(a, k, SS_IMPL_COUNT, in, N, p, np, SS_ERR_UNSUPPORTED, "impl out of range");
  ok &= cf_expect(a, k, (ss_impl)-1, in, N, p, np, SS_ERR_UNSUPPORTED, "impl -1");
  if (!cf_has_simd())
    ok &= cf_expect(a, k, SS_IMPL_SIMD, in, N, p, np, SS_ERR_UNSUPPORTED, "no SIMD");
  return ok;
}

bool cf_family_bad_inputs(const cf_adapter *a, size_t n, const size_t *where, size_t nwhere,
                          cf_battery_extra extra, double draws) {
  bool all_ok = true;
  cf_count cnt = {0};
  CF_FOR_EACH_KERNEL(k, a->family) {
    cnt.kernels++;
    double p[CF_MAX_PARAMS + 1];
    cf_defaults(k, n, p);
    const long di = draws > 0 ? cf_param_index(k, "draws") : -1;
    if (di >= 0) p[di] = draws;
    p[k->nparams] = 0.0;
    all_ok &= cf_bad_input_battery(a, k, p, k->nparams, n, where, nwhere, extra, &cnt.cases);
  }
  char label[64];
  snprintf(label, sizeof label, "%s bad inputs", ss_family_name(a->family));
  cf_report(label, &cnt);
  return all_ok;
}
