/*
 * One training step of the tiny model (softscope.h, ss_model_step): the
 * gradient (ss_model_grad), then the registry's optimizer on every tensor
 * through ss_optimize, each tensor with its own slots and scalars, the
 * learning rate times ss_schedule_factor at step t. No optimizer is written
 * here: weight decay, momentum, bias corrections are the kernel's own.
 *
 *   look-ahead (sam): g = grad L(w); w_adv = ss_sam_perturb(w, g) per tensor;
 *                     g_adv = grad L(w_adv); the step from w with g_adv
 *   cols (sage):      each tensor's row length, so its statistics are per
 *                     feature of that matrix
 *   weight_decay:     on embeddings and matrices only (ss_tensor_kind), as
 *                     nanoGPT decays its 2-D tensors and not gains or biases
 *   trained normalizer parameters: projected back into their registry range
 *                     after the update (min/max, or the next float inside an
 *                     open bound)
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "model/model_internal.h"
#include "model/model_acts.h"

#define MAX_OPT_PARAMS 16

static ss_status check_optim(const ss_model_optim *o) {
  if (!o->optimizer || (o->nparams && !o->params)) return SS_ERR_NULL;
  if (o->optimizer->family != SS_FAMILY_OPTIMIZER) return SS_ERR_FAMILY;
  if (o->nparams > MAX_OPT_PARAMS) return SS_ERR_PARAM_COUNT;
  const ss_status s = ss_params_check(o->optimizer, o->params, o->nparams);
  if (s != SS_OK) return s;
  const double v[] = {o->total, o->warmup, o->decay, o->min_factor};
  for (size_t i = 0; i < 4; i++)
    if (!isfinite(v[i])) return SS_ERR_PARAM_RANGE;
  if (o->schedule >= SS_SCHEDULE_COUNT) return SS_ERR_PARAM_RANGE;
  if (o->schedule != SS_SCHEDULE_CONSTANT && !(o->total >= 1)) return SS_ERR_PARAM_RANGE;
  if (o->warmup < 0 || o->decay < 0 || o->decay > 1 || o->min_factor < 0 || o->min_factor > 1)
    return SS_ERR_PARAM_RANGE;
  return SS_OK;
}

size_t ss_model_opt_state_size(const ss_model_config *cfg, const ss_kernel_info *k) {
  if (!k || k->family != SS_FAMILY_OPTIMIZER || ss_model_config_check(cfg) != SS_OK) return 0;
  model_layout lay;
  ss_model_layout_of(cfg, &lay);
  size_t total = 0;
  for (size_t i = 0; i < lay.ntensors; i++)
    total += ss_opt_state_size(k, lay.t[i].t.rows * lay.t[i].t.cols);
  return total;
}

/* Holds a layer's trained normalizer parameters (its tensor w) inside
   their ranges. */
static void project_norm_params(const ss_model_config *cfg, const model_layout *lay, float *t) {
  for (size_t i = 0; i < lay->nfloat; i++) {
    const ss_param_info *pi = &cfg->normalizer->params[lay->float_index[i]];
    float *w = &t[i];
    float lo = (float)pi->min, hi = (float)pi->max;
    if ((double)lo < pi->min || (pi->min_open && (double)lo <= pi->min)) lo = nextafterf(lo, INFINITY);
    if ((double)hi > pi->max || (pi->max_open && (double)hi >= pi->max)) hi = nextafterf(hi, -INFINITY);
    if (*w < lo) *w = lo;
    if (*w > hi) *w = hi;
  }
}

/* Whether the optimizer's weight decay applies to a tensor of this kind. */
static bool decays(uint32_t kind) { return kind == SS_TENSOR_EMBEDDING || kind == SS_TENSOR_MATRIX; }

ss_status ss_model_step(const ss_model_config *cfg, ss_impl impl, const ss_model_optim *opt,
                        float *params, float *grads, float *state, double *scalars,
                        const ss_model_batch *b, void *work, size_t work_bytes,
                        ss_model_outputs *out) {
  model_layout lay;
  model_plan p;
  model_acts A;
  if (!opt || !grads || !scalars) return SS_ERR_NULL;
  ss_status s = ss_model_check_call(cfg, impl, params, b, work, work_bytes, false, &lay, &p, &A);
  if (s != SS_OK) return s;
  if ((s = check_optim(opt)) != SS_OK) return s;
  const ss_kernel_info *k = opt->optimizer;
  if (k->opt_slots && !state) return SS_ERR_NULL;
  if (out && (out->maps || out->hidden || out->values) && out->map_example >= b->batch)
    return SS_ERR_PARAM_RANGE;
  const model_ctx c = {.cfg = cfg, .impl = impl, .lay = &lay, .p = &p, .b = b, .A = &A};
  if ((s = ss_model_run_forward(&c, params, out)) != SS_OK ||
      (s = ss_model_run_backward(&c, params, grads)) != SS_OK)
    return s;
  if (k->lookahead) {
    const double rho = ss_param_value(k, opt->params, "rho", 0.0);
    float *saved = A.saved;
    memcpy(saved, params, lay.total * sizeof(float));
    for (size_t i = 0; i < lay.ntensors; i++) {
      const ss_model_tensor *t = &lay.t[i].t;
      if ((s = ss_sam_perturb(impl, saved + t->offset, grads + t->offset, t->rows * t->cols, rho,
                              params + t->offset)) != SS_OK)
        break;
    }
    if (s == SS_OK && (s = ss_model_run_forward(&c, params, NULL)) == SS_OK)
      s = ss_model_run_backward(&c, params, grads);
    memcpy(params, saved, lay.total * sizeof(float));
    if (s != SS_OK) return s;
  }
  double hp[MAX_OPT_PARAMS];
  for (size_t i = 0; i < opt->nparams; i++) hp[i] = opt->params[i];
  const double t = scalars[0] + 1.0;
  const long lr_at = ss_param_index(k, "lr"), cols_at = ss_param_index(k, "cols");
  const long wd_at = ss_param_index(k, "weight_decay");
  if (lr_at >= 0)
    hp[lr_at] *= ss_schedule_factor((ss_schedule)opt->schedule, t, opt->total, opt->warmup,
                                    opt->decay, opt->min_factor);
  const double wd = wd_at >= 0 && (size_t)wd_at < opt->nparams ? hp[wd_at] : 0.0;
  float *slots = state;
  for (size_t i = 0; i < lay.ntensors; i++) {
    const ss_model_tensor *tn = &lay.t[i].t;
    const size_t cnt = tn->rows * tn->cols;
    if (cols_at >= 0) hp[cols_at] = (double)tn->cols;
    if (wd_at >= 0 && (size_t)wd_at < opt->nparams) hp[wd_at] = decays(tn->kind) ? wd : 0.0;
    if ((s = ss_optimize(k, impl, params + tn->offset, grads + tn->offset, cnt, hp, opt->nparams,
                         slots, scalars + i * SS_OPT_SCALARS)) != SS_OK)
      return s;
    if (slots) slots += ss_opt_state_size(k, cnt);
    if (tn->kind == SS_TENSOR_NORMALIZER) project_norm_params(cfg, &lay, params + tn->offset);
  }
  return SS_OK;
}
