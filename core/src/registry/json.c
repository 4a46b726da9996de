/* The registry as JSON (ss_registry_json): every kernel's descriptor, the
   statuses and the C enums, and the parts the families write themselves
   through json_sections.h (the optimizers' test functions and schedules).
   The writer's primitives are registry/json_write.c's (a file of their own,
   so a family's section and this file never call each other). */
#include "registry/json.h"
#include "softscope.h"

static const ss_json_section *const sections[] = {
#define SS_JSON_SECTION(name) &ss_json_##name,
#include "registry/json_sections.h"
#undef SS_JSON_SECTION
};

#define SECTIONS_LEN (sizeof sections / sizeof sections[0])

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

static void json_kernel(ss_json *b, const ss_kernel_info *k) {
  ss_json_raw(b, "{\"name\":");
  ss_json_str(b, k->name);
  ss_json_raw(b, ",\"family\":");
  ss_json_str(b, ss_family_name(k->family));
  ss_json_raw(b, ",\"summary\":");
  ss_json_str(b, k->summary);
  ss_json_raw(b, ",\"formula\":");
  ss_json_str(b, k->formula);
  ss_json_raw(b, ",\"paper\":");
  ss_json_str(b, k->paper);
  ss_json_raw(b, ",\"input\":");
  ss_json_str(b, input_kind_name(k->input));
  ss_json_raw(b, ",\"output\":");
  ss_json_str(b, output_name(k));
  const char *role = role_name(k->role);
  if (role) {
    ss_json_raw(b, ",\"role\":");
    ss_json_str(b, role);
  }
  if (k->role == SS_ROLE_DECODE_STAGE) {
    ss_json_raw(b, ",\"stage\":");
    ss_json_num(b, (double)k->stage);
    ss_json_raw(b, ",\"stage_param\":");
    if (k->stage_param) ss_json_str(b, k->stage_param);
    else ss_json_raw(b, "null");
  }
  if (k->family == SS_FAMILY_ATTENTION) /* random features: ss_attention_kernel_estimate works */
    ss_json_raw(b, k->kernel_estimate[SS_IMPL_SCALAR] ? ",\"kernel_estimate\":true" : ",\"kernel_estimate\":false");
  if (k->family == SS_FAMILY_SAMPLER) {
    ss_json_raw(b, ",\"draws\":");
    ss_json_str(b, draw_kind_name(k->draws));
  }
  if (k->family == SS_FAMILY_QUANTIZER) { /* what x may hold; a cast's largest value (else null) */
    ss_json_raw(b, k->nonnegative ? ",\"domain\":\"nonnegative\"" : ",\"domain\":\"real\"");
    ss_json_raw(b, ",\"cast_max\":");
    if (k->cast_max > 0) ss_json_num(b, k->cast_max);
    else ss_json_raw(b, "null");
  }
  if (k->family == SS_FAMILY_OPTIMIZER) {
    ss_json_raw(b, ",\"state_slots\":");
    ss_json_num(b, (double)k->opt_slots);
    ss_json_raw(b, k->lookahead ? ",\"lookahead\":true" : ",\"lookahead\":false");
    ss_json_raw(b, k->averaged ? ",\"averaged\":true" : ",\"averaged\":false");
  }
  ss_json_raw(b, k->has_backward ? ",\"has_backward\":true" : ",\"has_backward\":false");
  if (k->family == SS_FAMILY_NORMALIZER)
    ss_json_raw(b, k->has_param_backward ? ",\"has_param_backward\":true"
                                  : ",\"has_param_backward\":false");
  if (k->family == SS_FAMILY_NORMALIZER)
    ss_json_raw(b, k->in_place ? ",\"in_place\":true" : ",\"in_place\":false");
  ss_json_raw(b, ",\"impls\":[");
  bool first = true;
  for (int i = 0; i < SS_IMPL_COUNT; i++) {
    const bool have = k->normalize[i] || k->measure[i] || k->loss[i] || k->sample[i] ||
                      k->quantize[i] || k->step[i] || k->attend[i];
    if (!have) continue;
    if (!first) ss_json_raw(b, ",");
    ss_json_str(b, ss_impl_name((ss_impl)i));
    first = false;
  }
  ss_json_raw(b, "],\"max_n\":");
  ss_json_num(b, (double)ss_kernel_max_n(k));
  if (k->relaxed_simd) {
    ss_json_raw(b, ",\"relaxed_simd\":");
    ss_json_str(b, k->relaxed_simd);
  }
  ss_json_raw(b, ",\"params\":[");
  for (size_t i = 0; i < k->nparams; i++) {
    const ss_param_info *p = &k->params[i];
    if (i) ss_json_raw(b, ",");
    ss_json_raw(b, "{\"name\":");
    ss_json_str(b, p->name);
    ss_json_raw(b, ",\"type\":");
    ss_json_str(b, param_type_name(p->type));
    ss_json_raw(b, ",\"min\":");
    ss_json_num(b, p->min);
    ss_json_raw(b, ",\"max\":");
    ss_json_num(b, p->max);
    ss_json_raw(b, p->min_open ? ",\"min_open\":true" : ",\"min_open\":false");
    ss_json_raw(b, p->max_open ? ",\"max_open\":true" : ",\"max_open\":false");
    ss_json_raw(b, ",\"default\":");
    ss_json_num(b, p->def);
    ss_json_raw(b, ",\"ui_min\":");
    ss_json_num(b, p->ui_min);
    ss_json_raw(b, ",\"ui_max\":");
    ss_json_num(b, p->ui_max);
    ss_json_raw(b, p->log_scale ? ",\"log_scale\":true" : ",\"log_scale\":false");
    ss_json_raw(b, ",\"help\":");
    ss_json_str(b, p->help);
    if (p->choices) {
      ss_json_raw(b, ",\"choices\":[\"");
      for (const char *c = p->choices; *c; c++) {
        if (*c == '|') ss_json_raw(b, "\",\"");
        else ss_json_rawn(b, c, 1);
      }
      ss_json_raw(b, "\"]");
    }
    if (p->n_bound != SS_N_BOUND_NONE)
      ss_json_raw(b, p->n_bound == SS_N_BOUND_LE ? ",\"n_bound\":\"le\"" : ",\"n_bound\":\"lt\"");
    ss_json_raw(b, "}");
  }
  ss_json_raw(b, "]}");
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
static void json_enum(ss_json *b, const char *key, int count, const char *(*name)(int)) {
  ss_json_str(b, key);
  ss_json_raw(b, ":[");
  for (int i = 0; i < count; i++) {
    if (i) ss_json_raw(b, ",");
    ss_json_str(b, name(i));
  }
  ss_json_raw(b, "]");
}
static const char *family_at(int i) { return ss_family_name((ss_family)i); }
static const char *impl_at(int i) { return ss_impl_name((ss_impl)i); }
static const char *method_at(int i) { return threshold_method_name((ss_threshold_method)i); }
static const char *solver_at(int i) { return entmax_solver_name((ss_entmax_solver)i); }
static const char *estimator_at(int i) { return estimator_name((ss_estimator)i); }

/* A family's sections (json_sections.h) of one kind, each as
   ,"key":[item, ...] -- after a first member written by the caller. */
static void json_sections(ss_json *b, bool enums) {
  for (size_t s = 0; s < SECTIONS_LEN; s++) {
    const ss_json_section *sec = sections[s];
    if (sec->is_enum != enums) continue;
    ss_json_raw(b, ",");
    ss_json_str(b, sec->key);
    ss_json_raw(b, ":[");
    const size_t count = sec->count();
    for (size_t i = 0; i < count; i++) {
      if (i) ss_json_raw(b, ",");
      sec->item(b, i);
    }
    ss_json_raw(b, "]");
  }
}

ss_status ss_registry_json(char *buf, size_t cap, size_t *len) {
  if (!len) return SS_ERR_NULL;
  ss_json b = {buf, buf ? cap : 0, 0};
  ss_json_raw(&b, "{\"version\":");
  ss_json_str(&b, SS_VERSION);
  ss_json_raw(&b, ",\"impl_default\":");
  ss_json_str(&b, ss_impl_name(ss_impl_default()));
  ss_json_raw(&b, ",\"build\":");
  ss_json_str(&b, ss_build_name());
  ss_json_raw(&b, ",\"max_n\":");
  ss_json_num(&b, (double)SS_MAX_N);
  ss_json_raw(&b, ",\"kernels\":[");
  for (size_t i = 0; i < ss_kernel_count(); i++) {
    if (i) ss_json_raw(&b, ",");
    json_kernel(&b, ss_kernel_at(i));
  }
  ss_json_raw(&b, "]");
  json_sections(&b, false); /* the families' own tables (optim: "functions") */
  /* The C enums JavaScript passes or reads as numbers, by value. */
  ss_json_raw(&b, ",\"statuses\":[");
  for (int i = 0; i < SS_STATUS_COUNT; i++) {
    ss_json_raw(&b, i ? ",{\"code\":" : "{\"code\":");
    ss_json_str(&b, ss_status_name((ss_status)i));
    ss_json_raw(&b, ",\"value\":");
    ss_json_num(&b, i);
    ss_json_raw(&b, ",\"message\":");
    ss_json_str(&b, ss_status_str((ss_status)i));
    ss_json_raw(&b, "}");
  }
  ss_json_raw(&b, "],\"enums\":{");
  json_enum(&b, "family", SS_FAMILY_COUNT, family_at);
  ss_json_raw(&b, ",");
  json_enum(&b, "impl", SS_IMPL_COUNT, impl_at);
  json_sections(&b, true); /* the families' enums (optim: "schedule") */
  ss_json_raw(&b, ",");
  json_enum(&b, "threshold_method", SS_THRESHOLD_SORT + 1, method_at);
  ss_json_raw(&b, ",");
  json_enum(&b, "entmax_solver", SS_ENTMAX_HALLEY + 1, solver_at);
  ss_json_raw(&b, ",");
  json_enum(&b, "estimator", SS_ESTIMATOR_COUNT, estimator_at);
  ss_json_raw(&b, "}}");
  *len = b.len;
  if (!buf || b.len + 1 > cap) {
    if (buf && cap) buf[0] = '\0';
    return SS_ERR_BUFFER;
  }
  buf[b.len] = '\0';
  return SS_OK;
}
