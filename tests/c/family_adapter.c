#include "family_adapter.h"

#include <stdio.h>

/* ---- the adapters ---------------------------------------------------------- */

static ss_status call_normalizer(const ss_kernel_info *k, ss_impl impl, const float *const rows[2],
                                 size_t n, const double *p, size_t np, cf_outputs *o) {
  return ss_normalize(k, impl, rows[0], n, p, np, o && rows[0] ? o->y : NULL);
}

static ss_status call_loss(const ss_kernel_info *k, ss_impl impl, const float *const rows[2],
                           size_t n, const double *p, size_t np, cf_outputs *o) {
  return ss_loss(k, impl, rows[0], n, p, np, o ? &o->d[0] : NULL, o ? o->y : NULL);
}

static ss_status call_sampler(const ss_kernel_info *k, ss_impl impl, const float *const rows[2],
                              size_t n, const double *p, size_t np, cf_outputs *o) {
  return ss_sample(k, impl, rows[0], n, p, np, o && rows[0] ? o->y : NULL, o ? o->idx : NULL,
                   o ? o->samples : NULL);
}

static ss_status call_quantizer(const ss_kernel_info *k, ss_impl impl, const float *const rows[2],
                                size_t n, const double *p, size_t np, cf_outputs *o) {
  return ss_quantize(k, impl, rows[0], n, p, np, o ? o->codes : NULL, o && rows[0] ? o->y : NULL);
}

static ss_status call_measure(const ss_kernel_info *k, ss_impl impl, const float *const rows[2],
                              size_t n, const double *p, size_t np, cf_outputs *o) {
  return ss_measure(k, impl, rows[0], rows[1], n, p, np, o ? &o->d[0] : NULL);
}

const cf_adapter cf_normalizer_adapter = {SS_FAMILY_NORMALIZER, "normalizer", call_normalizer,
                                          false, false};
const cf_adapter cf_loss_adapter = {SS_FAMILY_LOSS, "loss", call_loss, false, false};
const cf_adapter cf_sampler_adapter = {SS_FAMILY_SAMPLER, "sampler", call_sampler, true, false};
const cf_adapter cf_quantizer_adapter = {SS_FAMILY_QUANTIZER, "quantizer", call_quantizer, true,
                                         false};
const cf_adapter cf_measure_adapter = {SS_FAMILY_MEASURE, "measure", call_measure, false, true};

int cf_rows_read(const ss_kernel_info *k) { return k->input == SS_INPUT_PROBS_PAIR ? 2 : 1; }

void cf_fill_rows(const cf_adapter *a, const ss_kernel_info *k, float *const rows[2], size_t n,
                  int kind, uint64_t seed) {
  cf_fill(rows[0], n, k->input, kind, a->positive, seed);
  if (a->second_row)
    cf_fill(rows[1], n, k->input, kind == CF_MASKED ? CF_NORMAL : kind, a->positive, seed + 99);
}

/* ---- one bad call ---------------------------------------------------------- */

static void poison_outputs(cf_outputs *o) {
  cf_poison(o->y, CF_OUT_N);
  cf_poison(o->samples, 4 * CF_OUT_N);
  memset(o->codes, 0x5a, sizeof o->codes);
  memset(o->idx, 0x5a, sizeof o->idx);
  o->d[0] = o->d[1] = -777.0;
}

static bool outputs_untouched(const cf_outputs *o) {
  cf_outputs fresh;
  poison_outputs(&fresh);
  return memcmp(o, &fresh, sizeof fresh) == 0;
}

bool cf_expect(const cf_adapter *a, const ss_kernel_info *k, ss_impl impl,
               const float *const rows[2], size_t n, const double *p, size_t np, ss_status want,
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
  const float *const rows[2] = {z, z};
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
  float r0[CF_OUT_N], r1[CF_OUT_N];
  float *const rows[2] = {r0, r1};
  const float *const *in = (const float *const *)rows;
  size_t cap;
  cf_case *invalid = cf_cases_alloc(&cap);
  bool ok = true;
  const float bad[] = {NAN, INFINITY, -INFINITY};
  static const char *const bad_name[] = {"NaN", "+Inf", "-Inf"};
  FOR_EACH_IMPL(impl) {
    for (int side = 0; side < cf_rows_read(k); side++)
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
          rows[side][(where[w] + 9) % N] = NAN;
          snprintf(what, sizeof what, "%s at %zu and NaN", bad_name[b], where[w]);
          ok &= cf_expect(a, k, impl, in, N, p, np, SS_ERR_NAN, what);
        }
    cf_fill_rows(a, k, rows, N, CF_NORMAL, 6);
    const float *const no_x[2] = {NULL, r1}, *const no_q[2] = {r0, NULL};
    ok &= cf_expect(a, k, impl, no_x, N, p, np, SS_ERR_NULL, "input NULL");
    if (cf_rows_read(k) == 2) ok &= cf_expect(a, k, impl, no_q, N, p, np, SS_ERR_NULL, "q NULL");
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
