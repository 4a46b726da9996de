/*
 * The trajectory engine: an optimizer on a 2-D test function, step by step,
 * with optional seeded gradient noise, gradient clipping and a learning-rate
 * schedule. The state (w, slots, scalars) is the caller's, so a run can be
 * advanced a few steps per animation frame and its hyperparameters changed
 * between calls (the playground), or run in one call (the CLI).
 *
 * The noise of step t, coordinate i is N(0, noise^2) number 2 t + i of
 * Philox stream NOISE_STREAM + e under the seed (e = 0 for the gradient at
 * w, 1 for SAM's gradient at the ascent point): a pure function of the step,
 * so every optimizer in a race sees the same noise and a resumed run the
 * same as an uninterrupted one.
 */
#include <math.h>

#include "common/check.h"
#include "common/rng.h"
#include "softscope.h"

#define NOISE_STREAM 0x7a6ull
#define MAX_STEPS 10000000u
#define MAX_PARAMS 16
#define DIVERGED 1e12

static ss_status check_opts(const ss_traj_opts *o) {
  const double v[] = {o->noise, o->clip, o->seed, o->schedule, o->total, o->warmup, o->decay,
                      o->min_factor};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    if (!isfinite(v[i])) return SS_ERR_PARAM_RANGE;
  if (o->noise < 0 || o->noise > 1e6 || o->clip < 0) return SS_ERR_PARAM_RANGE;
  if (o->seed < 0 || o->seed > 9007199254740992.0 || o->seed != floor(o->seed))
    return SS_ERR_PARAM_RANGE;
  if (o->schedule < 0 || o->schedule >= SS_SCHEDULE_COUNT || o->schedule != floor(o->schedule))
    return SS_ERR_PARAM_RANGE;
  if (o->schedule != SS_SCHEDULE_CONSTANT && !(o->total >= 1)) return SS_ERR_PARAM_RANGE;
  if (o->warmup < 0 || o->decay < 0 || o->decay > 1 || o->min_factor < 0 || o->min_factor > 1)
    return SS_ERR_PARAM_RANGE;
  return SS_OK;
}

/* The (noisy, clipped) gradient at p; false when it is not finite. */
static bool gradient(size_t fn, const float p[2], const ss_traj_opts *o, uint64_t t, uint64_t e,
                     float g[2]) {
  double f, d[2];
  if (ss_testfn_eval(fn, p[0], p[1], &f, d) != SS_OK) return false;
  if (o->noise > 0)
    for (int i = 0; i < 2; i++)
      d[i] += o->noise * ss_philox_normal((uint64_t)o->seed, NOISE_STREAM + e, 2 * t + (uint64_t)i);
  const double norm = sqrt(d[0] * d[0] + d[1] * d[1]);
  if (!isfinite(norm)) return false;
  if (o->clip > 0 && norm > o->clip) d[0] *= o->clip / norm, d[1] *= o->clip / norm;
  g[0] = (float)d[0], g[1] = (float)d[1];
  return isfinite(g[0]) && isfinite(g[1]);
}

ss_status ss_trajectory(const ss_kernel_info *k, ss_impl impl, size_t fn, const double *params,
                        size_t nparams, const ss_traj_opts *o, size_t steps, float *w,
                        float *slots, double *scalars, double *path, size_t *done) {
  if (!k || !o || !w || !scalars || !path || !done || (k->opt_slots && !slots)) return SS_ERR_NULL;
  if (k->family != SS_FAMILY_OPTIMIZER) return SS_ERR_FAMILY;
  if ((unsigned)impl >= SS_IMPL_COUNT || !ss_impl_available(impl) || !k->step[impl])
    return SS_ERR_UNSUPPORTED;
  if (fn >= ss_testfn_count()) return SS_ERR_UNKNOWN_KERNEL;
  if (steps > MAX_STEPS) return SS_ERR_TOO_LARGE;
  if (nparams > MAX_PARAMS) return SS_ERR_PARAM_COUNT;
  ss_status s = ss_params_check(k, params, nparams);
  if (s != SS_OK || (s = check_opts(o)) != SS_OK) return s;
  if ((s = ss_check_finite(w, 2)) != SS_OK) return s;
  if (!(scalars[0] >= 0 && scalars[0] < 9007199254740992.0 && scalars[0] == floor(scalars[0])))
    return SS_ERR_DOMAIN;

  double p[MAX_PARAMS];
  const long lr_at = ss_param_index(k, "lr");
  for (size_t i = 0; i < nparams; i++) p[i] = params[i];
  const double rho = ss_param_value(k, params, "rho", 0.0);
  *done = 0;
  for (size_t i = 0; i < steps; i++) {
    const uint64_t t = (uint64_t)scalars[0] + 1;
    float g[2], at[2] = {w[0], w[1]};
    if (!gradient(fn, at, o, t, 0, g)) break;
    if (k->lookahead && (ss_sam_perturb(impl, w, g, 2, rho, at) != SS_OK ||
                         !gradient(fn, at, o, t, 1, g)))
      break;
    if (lr_at >= 0)
      p[lr_at] = params[lr_at] * ss_schedule_factor((ss_schedule)o->schedule, (double)t, o->total,
                                                    o->warmup, o->decay, o->min_factor);
    s = k->step[impl](w, g, 2, p, t, slots, scalars + 1);
    if (s != SS_OK) return s;
    scalars[0] = (double)t;
    const float *q = k->averaged ? slots : w;
    double f, d[2];
    if (!(fabsf(w[0]) < DIVERGED && fabsf(w[1]) < DIVERGED) ||
        ss_testfn_eval(fn, q[0], q[1], &f, d) != SS_OK || !isfinite(f))
      break;
    path[3 * i] = q[0], path[3 * i + 1] = q[1], path[3 * i + 2] = f;
    *done = i + 1;
  }
  return SS_OK;
}
