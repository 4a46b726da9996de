/* The kernel registry: the one list that the CLI, the JS API, the playground,
   the tests and the benchmarks enumerate. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry/kernels.h"

static const ss_kernel_info *const registry[] = {
#define SS_KERNEL(name) &ss_kernel_##name,
#include "registry/kernel_list.h"
#undef SS_KERNEL
};

#define REGISTRY_LEN (sizeof registry / sizeof registry[0])

size_t ss_kernel_count(void) { return REGISTRY_LEN; }

const ss_kernel_info *ss_kernel_at(size_t i) {
  return i < REGISTRY_LEN ? registry[i] : NULL;
}

size_t ss_kernel_max_n(const ss_kernel_info *k) {
  return k && k->max_n && k->max_n < SS_MAX_N ? k->max_n : SS_MAX_N;
}

const ss_kernel_info *ss_kernel_find(const char *name, ss_family family) {
  if (!name) return NULL;
  for (size_t i = 0; i < REGISTRY_LEN; i++) {
    const ss_kernel_info *k = registry[i];
    if ((family == SS_FAMILY_COUNT || k->family == family) &&
        strcmp(k->name, name) == 0)
      return k;
  }
  return NULL;
}

const char *ss_family_name(ss_family f) {
  switch (f) {
    case SS_FAMILY_NORMALIZER: return "normalizer";
    case SS_FAMILY_SAMPLER: return "sampler";
    case SS_FAMILY_OPTIMIZER: return "optimizer";
    case SS_FAMILY_QUANTIZER: return "quantizer";
    case SS_FAMILY_MEASURE: return "measure";
    case SS_FAMILY_LOSS: return "loss";
    case SS_FAMILY_ATTENTION: return "attention";
    default: return "unknown";
  }
}

static bool param_ok(const ss_param_info *p, double v) {
  if (!isfinite(v)) return false;
  if (p->min_open ? !(v > p->min) : !(v >= p->min)) return false;
  if (p->max_open ? !(v < p->max) : !(v <= p->max)) return false;
  if (p->type == SS_PARAM_INT && v != floor(v)) return false;
  if (p->type == SS_PARAM_BOOL && v != 0.0 && v != 1.0) return false;
  return true;
}

long ss_params_bad_index(const ss_kernel_info *k, const double *params,
                         size_t nparams) {
  if (!k || nparams != k->nparams || (nparams && !params)) return -1;
  for (size_t i = 0; i < nparams; i++)
    if (!param_ok(&k->params[i], params[i])) return (long)i;
  return -1;
}

/* A count or an index into x (top-k's k, a loss target) is bounded by n. */
static bool n_bound_ok(const ss_param_info *p, double v, size_t n) {
  if (n == 0) return true;
  if (p->n_bound == SS_N_BOUND_LE) return v <= (double)n;
  if (p->n_bound == SS_N_BOUND_LT) return v < (double)n;
  return true;
}

long ss_params_bad_index_n(const ss_kernel_info *k, const double *params,
                           size_t nparams, size_t n) {
  const long i = ss_params_bad_index(k, params, nparams);
  if (i >= 0 || !k || nparams != k->nparams) return i;
  for (size_t j = 0; j < nparams; j++)
    if (!n_bound_ok(&k->params[j], params[j], n)) return (long)j;
  return -1;
}

ss_status ss_params_check_n(const ss_kernel_info *k, const double *params,
                            size_t nparams, size_t n) {
  const ss_status s = ss_params_check(k, params, nparams);
  if (s != SS_OK) return s;
  for (size_t j = 0; j < nparams; j++)
    if (!n_bound_ok(&k->params[j], params[j], n)) return SS_ERR_LENGTH;
  return SS_OK;
}

ss_status ss_params_check(const ss_kernel_info *k, const double *params,
                          size_t nparams) {
  if (!k) return SS_ERR_NULL;
  if (nparams != k->nparams) return SS_ERR_PARAM_COUNT;
  if (nparams && !params) return SS_ERR_NULL;
  return ss_params_bad_index(k, params, nparams) >= 0 ? SS_ERR_PARAM_RANGE
                                                      : SS_OK;
}

/* ---- JSON ------------------------------------------------------------- */

typedef struct jbuf {
  char *buf;
  size_t cap, len;
} jbuf;

static void jput(jbuf *b, const char *s, size_t n) {
  for (size_t i = 0; i < n; i++, b->len++)
    if (b->buf && b->len + 1 < b->cap) b->buf[b->len] = s[i];
}
static void jraw(jbuf *b, const char *s) { jput(b, s, strlen(s)); }

static void jstr(jbuf *b, const char *s) {
  jraw(b, "\"");
  for (; s && *s; s++) {
    const char c = *s;
    if (c == '"' || c == '\\') {
      const char esc[2] = {'\\', c};
      jput(b, esc, 2);
    } else if ((unsigned char)c < 0x20) {
      jraw(b, c == '\n' ? "\\n" : " ");
    } else {
      jput(b, &c, 1);
    }
  }
  jraw(b, "\"");
}

/* Doubles as JSON numbers, in the shortest form that round-trips;
   infinities (never in ranges here) become null. */
static void jnum(jbuf *b, double v) {
  if (!isfinite(v)) {
    jraw(b, "null");
    return;
  }
  char tmp[40];
  int n = 0;
  for (int prec = 1; prec <= 17; prec++) {
    n = snprintf(tmp, sizeof tmp, "%.*g", prec, v);
    if (strtod(tmp, NULL) == v) break;
  }
  jput(b, tmp, (size_t)n);
}

static const char *param_type_name(ss_param_type t) {
  switch (t) {
    case SS_PARAM_INT: return "int";
    case SS_PARAM_BOOL: return "bool";
    default: return "float";
  }
}

static const char *input_kind_name(ss_input_kind k) {
  switch (k) {
    case SS_INPUT_PROBS: return "probs";
    case SS_INPUT_PROBS_PAIR: return "probs_pair";
    case SS_INPUT_VALUES: return "values";
    default: return "logits";
  }
}

static const char *output_kind_name(ss_output_kind k) {
  switch (k) {
    case SS_OUTPUT_LOG_PROBS: return "log_probs";
    case SS_OUTPUT_WEIGHTS: return "weights";
    default: return "probs";
  }
}

static const char *draw_kind_name(ss_draw_kind k) {
  switch (k) {
    case SS_DRAW_RELAXED: return "relaxed";
    case SS_DRAW_VECTOR: return "vector";
    default: return "index";
  }
}

/* What a kernel's output is, for every family (normalizers say which). */
static const char *output_name(const ss_kernel_info *k) {
  switch (k->family) {
    case SS_FAMILY_NORMALIZER: return output_kind_name(k->output);
    case SS_FAMILY_SAMPLER: return "draws";             /* probs + indices / samples */
    case SS_FAMILY_OPTIMIZER: return "params";          /* w and the state, updated in place */
    case SS_FAMILY_QUANTIZER: return "values_and_codes";/* dequantized values + integer codes */
    case SS_FAMILY_MEASURE: return "scalar";
    case SS_FAMILY_LOSS: return "scalar_and_grad";      /* the loss and dL/dx */
    case SS_FAMILY_ATTENTION: return "rows";            /* n x dv outputs (+ attention matrices) */
    case SS_FAMILY_COUNT: break;
  }
  return "unknown";
}

static const char *role_name(ss_role r) {
  switch (r) {
    case SS_ROLE_DECODE_STAGE: return "decode_stage";
    case SS_ROLE_EXACT_ATTENTION: return "exact_attention";
    case SS_ROLE_LINEAR_ATTENTION: return "linear_attention";
    case SS_ROLE_NONE: break;
  }
  return NULL;
}

static void json_kernel(jbuf *b, const ss_kernel_info *k) {
  jraw(b, "{\"name\":");
  jstr(b, k->name);
  jraw(b, ",\"family\":");
  jstr(b, ss_family_name(k->family));
  jraw(b, ",\"summary\":");
  jstr(b, k->summary);
  jraw(b, ",\"formula\":");
  jstr(b, k->formula);
  jraw(b, ",\"paper\":");
  jstr(b, k->paper);
  jraw(b, ",\"input\":");
  jstr(b, input_kind_name(k->input));
  jraw(b, ",\"output\":");
  jstr(b, output_name(k));
  const char *role = role_name(k->role);
  if (role) {
    jraw(b, ",\"role\":");
    jstr(b, role);
  }
  if (k->role == SS_ROLE_DECODE_STAGE) {
    jraw(b, ",\"stage\":");
    jnum(b, (double)k->stage);
    jraw(b, ",\"stage_param\":");
    if (k->stage_param) jstr(b, k->stage_param);
    else jraw(b, "null");
  }
  if (k->family == SS_FAMILY_ATTENTION) /* random features: ss_attention_kernel_estimate works */
    jraw(b, k->kernel_estimate[SS_IMPL_SCALAR] ? ",\"kernel_estimate\":true" : ",\"kernel_estimate\":false");
  if (k->family == SS_FAMILY_SAMPLER) {
    jraw(b, ",\"draws\":");
    jstr(b, draw_kind_name(k->draws));
  }
  if (k->family == SS_FAMILY_OPTIMIZER) {
    jraw(b, ",\"state_slots\":");
    jnum(b, (double)k->opt_slots);
    jraw(b, k->lookahead ? ",\"lookahead\":true" : ",\"lookahead\":false");
    jraw(b, k->averaged ? ",\"averaged\":true" : ",\"averaged\":false");
  }
  jraw(b, k->has_backward ? ",\"has_backward\":true" : ",\"has_backward\":false");
  if (k->family == SS_FAMILY_NORMALIZER)
    jraw(b, k->has_param_backward ? ",\"has_param_backward\":true"
                                  : ",\"has_param_backward\":false");
  jraw(b, ",\"impls\":[");
  bool first = true;
  for (int i = 0; i < SS_IMPL_COUNT; i++) {
    const bool have = k->normalize[i] || k->measure[i] || k->loss[i] || k->sample[i] ||
                      k->quantize[i] || k->step[i] || k->attend[i];
    if (!have) continue;
    if (!first) jraw(b, ",");
    jstr(b, ss_impl_name((ss_impl)i));
    first = false;
  }
  jraw(b, "],\"max_n\":");
  jnum(b, (double)ss_kernel_max_n(k));
  if (k->relaxed_simd) {
    jraw(b, ",\"relaxed_simd\":");
    jstr(b, k->relaxed_simd);
  }
  jraw(b, ",\"params\":[");
  for (size_t i = 0; i < k->nparams; i++) {
    const ss_param_info *p = &k->params[i];
    if (i) jraw(b, ",");
    jraw(b, "{\"name\":");
    jstr(b, p->name);
    jraw(b, ",\"type\":");
    jstr(b, param_type_name(p->type));
    jraw(b, ",\"min\":");
    jnum(b, p->min);
    jraw(b, ",\"max\":");
    jnum(b, p->max);
    jraw(b, p->min_open ? ",\"min_open\":true" : ",\"min_open\":false");
    jraw(b, p->max_open ? ",\"max_open\":true" : ",\"max_open\":false");
    jraw(b, ",\"default\":");
    jnum(b, p->def);
    jraw(b, ",\"ui_min\":");
    jnum(b, p->ui_min);
    jraw(b, ",\"ui_max\":");
    jnum(b, p->ui_max);
    jraw(b, p->log_scale ? ",\"log_scale\":true" : ",\"log_scale\":false");
    jraw(b, ",\"help\":");
    jstr(b, p->help);
    if (p->choices) {
      jraw(b, ",\"choices\":[\"");
      for (const char *c = p->choices; *c; c++) {
        if (*c == '|') jraw(b, "\",\"");
        else jput(b, c, 1);
      }
      jraw(b, "\"]");
    }
    if (p->n_bound != SS_N_BOUND_NONE)
      jraw(b, p->n_bound == SS_N_BOUND_LE ? ",\"n_bound\":\"le\"" : ",\"n_bound\":\"lt\"");
    jraw(b, "}");
  }
  jraw(b, "]}");
}

static void json_testfn(jbuf *b, const ss_testfn_info *f, size_t i) {
  if (i) jraw(b, ",");
  jraw(b, "{\"name\":");
  jstr(b, f->name);
  jraw(b, ",\"summary\":");
  jstr(b, f->summary);
  jraw(b, ",\"formula\":");
  jstr(b, f->formula);
  jraw(b, ",\"view\":[");
  const double v[] = {f->xmin, f->xmax, f->ymin, f->ymax};
  for (int j = 0; j < 4; j++) {
    if (j) jraw(b, ",");
    jnum(b, v[j]);
  }
  jraw(b, "],\"start\":[");
  jnum(b, f->start[0]);
  jraw(b, ",");
  jnum(b, f->start[1]);
  jraw(b, "],\"minima\":[");
  for (size_t j = 0; j < f->nminima; j++) {
    jraw(b, j ? ",[" : "[");
    jnum(b, f->minima[j][0]);
    jraw(b, ",");
    jnum(b, f->minima[j][1]);
    jraw(b, "]");
  }
  jraw(b, "],\"fmin\":");
  jnum(b, f->fmin);
  jraw(b, f->game ? ",\"game\":true}" : ",\"game\":false}");
}

static const char *threshold_method_name(ss_threshold_method m) {
  switch (m) {
    case SS_THRESHOLD_SELECT: return "select";
    case SS_THRESHOLD_SORT: return "sort";
  }
  return NULL;
}

static const char *entmax_solver_name(ss_entmax_solver s) {
  switch (s) {
    case SS_ENTMAX_BISECT: return "bisect";
    case SS_ENTMAX_HALLEY: return "halley";
  }
  return NULL;
}

static const char *estimator_name(ss_estimator e) {
  switch (e) {
    case SS_ESTIMATOR_ST: return "st";
    case SS_ESTIMATOR_GUMBEL_SOFTMAX: return "gumbel_softmax";
    case SS_ESTIMATOR_ST_GUMBEL: return "st_gumbel";
    case SS_ESTIMATOR_REINMAX: return "reinmax";
    case SS_ESTIMATOR_COUNT: break;
  }
  return NULL;
}

/* "key":["name0","name1",...] for an enum whose values are 0 .. count-1. */
static void json_enum(jbuf *b, const char *key, int count, const char *(*name)(int)) {
  jstr(b, key);
  jraw(b, ":[");
  for (int i = 0; i < count; i++) {
    if (i) jraw(b, ",");
    jstr(b, name(i));
  }
  jraw(b, "]");
}
static const char *family_at(int i) { return ss_family_name((ss_family)i); }
static const char *impl_at(int i) { return ss_impl_name((ss_impl)i); }
static const char *schedule_at(int i) { return ss_schedule_name((ss_schedule)i); }
static const char *method_at(int i) { return threshold_method_name((ss_threshold_method)i); }
static const char *solver_at(int i) { return entmax_solver_name((ss_entmax_solver)i); }
static const char *estimator_at(int i) { return estimator_name((ss_estimator)i); }

ss_status ss_registry_json(char *buf, size_t cap, size_t *len) {
  if (!len) return SS_ERR_NULL;
  jbuf b = {buf, buf ? cap : 0, 0};
  jraw(&b, "{\"version\":\"" SS_VERSION "\",\"impl_default\":");
  jstr(&b, ss_impl_name(ss_impl_default()));
  jraw(&b, ",\"build\":");
  jstr(&b, ss_build_name());
  jraw(&b, ",\"max_n\":");
  jnum(&b, (double)SS_MAX_N);
  jraw(&b, ",\"kernels\":[");
  for (size_t i = 0; i < REGISTRY_LEN; i++) {
    if (i) jraw(&b, ",");
    json_kernel(&b, registry[i]);
  }
  jraw(&b, "],\"functions\":[");
  for (size_t i = 0; i < ss_testfn_count(); i++)
    json_testfn(&b, ss_testfn_at(i), i);
  jraw(&b, "],\"schedules\":[");
  for (int i = 0; i < SS_SCHEDULE_COUNT; i++) {
    if (i) jraw(&b, ",");
    jstr(&b, ss_schedule_name((ss_schedule)i));
  }
  /* The C enums JavaScript passes or reads as numbers, by value. */
  jraw(&b, "],\"statuses\":[");
  for (int i = 0; i < SS_STATUS_COUNT; i++) {
    jraw(&b, i ? ",{\"code\":" : "{\"code\":");
    jstr(&b, ss_status_name((ss_status)i));
    jraw(&b, ",\"value\":");
    jnum(&b, i);
    jraw(&b, ",\"message\":");
    jstr(&b, ss_status_str((ss_status)i));
    jraw(&b, "}");
  }
  jraw(&b, "],\"enums\":{");
  json_enum(&b, "family", SS_FAMILY_COUNT, family_at);
  jraw(&b, ",");
  json_enum(&b, "impl", SS_IMPL_COUNT, impl_at);
  jraw(&b, ",");
  json_enum(&b, "schedule", SS_SCHEDULE_COUNT, schedule_at);
  jraw(&b, ",");
  json_enum(&b, "threshold_method", SS_THRESHOLD_SORT + 1, method_at);
  jraw(&b, ",");
  json_enum(&b, "entmax_solver", SS_ENTMAX_HALLEY + 1, solver_at);
  jraw(&b, ",");
  json_enum(&b, "estimator", SS_ESTIMATOR_COUNT, estimator_at);
  jraw(&b, "}}");
  *len = b.len;
  if (!buf || b.len + 1 > cap) {
    if (buf && cap) buf[0] = '\0';
    return SS_ERR_BUFFER;
  }
  buf[b.len] = '\0';
  return SS_OK;
}
