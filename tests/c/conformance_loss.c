/*
 * Conformance tester of every registered loss (registry-driven; see
 * conformance.h). Every loss of the family is a Fenchel-Young loss (or
 * cross-entropy): L(x; target) >= 0 and grad = prediction - onehot(target),
 * so sum grad = 0. For each kernel, each parameter case (the target
 * clamped below n) and each input kind at the lengths below:
 *   - scalar and SIMD give the same status; in-range parameters on moderate
 *     logits give SS_OK (SS_ERR_DOMAIN only for a masked target, as
 *     ss_loss states; extreme logits may also get it);
 *   - on SS_OK the loss is finite and >= -LOSS_ABS, the gradient finite,
 *     exactly 0 at masked logits, summing to 0 within LOSS_SUM;
 *   - SIMD vs scalar: loss within LOSS_REL relative (+ LOSS_ABS), gradient
 *     within LOSS_REL |g| + LOSS_ABS_G (grad = p - e_t: p's scale);
 *   - every n from 0 to 67 and n = 65539 with the defaults;
 *   - bad inputs get their status (NaN, +Inf, all -Inf, NULL, n = 0,
 *     n > SS_MAX_N, every invalid parameter, a target >= n, wrong count);
 *   - the gradient agrees with central differences of the loss along
 *     random directions.
 */
#include "family_adapter.h"
#include "fd.h"

#define LOSS_REL 0x1p-16
#define LOSS_ABS 1e-6
#define LOSS_ABS_G 0x1p-20 /* grad = p - e_t: absolute, on the scale of p <= 1 */
#define LOSS_SUM 0x1p-15
#define FD_TOL 2e-3

static const size_t PARAM_NS[] = {1, 2, 3, 5, 16, 17, 67, 300};
#define NPARAM_NS (sizeof PARAM_NS / sizeof PARAM_NS[0])

static size_t target_of(const ss_kernel_info *k, const double *p) {
  return (size_t)ss_param_value(k, p, "target", 0.0);
}

static bool run_case(const ss_kernel_info *k, const float *x, size_t n, const double *p,
                     bool extreme, float *g0, float *g1, const char *what, cf_count *cnt) {
  double l0 = -777.0, l1 = -777.0;
  const ss_status s0 = ss_loss(k, SS_IMPL_SCALAR, x, n, p, k->nparams, &l0, g0);
  cnt->calls++;
  const bool masked_target = x[target_of(k, p)] == -INFINITY;
  if (!cf_scalar_status(k, s0,
                        cf_status_allowed(s0, extreme) || (s0 == SS_ERR_DOMAIN && masked_target),
                        what, n, p))
    return false;
  if (s0 == SS_OK) {
    cnt->ok++;
    double sum = 0.0;
    for (size_t i = 0; i < n; i++) {
      if (!isfinite(g0[i]) || (x[i] == -INFINITY && g0[i] != 0.0f)) {
        ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: grad[%zu] = %g", k->name, what, n, i, g0[i]);
        return false;
      }
      sum += g0[i];
    }
    if (!isfinite(l0) || l0 < -LOSS_ABS || !(fabs(sum) <= LOSS_SUM)) {
      ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: loss %g, sum grad %g", k->name, what, n, l0,
                   sum);
      return false;
    }
  }
  if (!cf_has_simd()) return true;
  const ss_status s1 = ss_loss(k, SS_IMPL_SIMD, x, n, p, k->nparams, &l1, g1);
  cnt->calls++;
  if (s1 != s0) {
    ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: scalar %s, SIMD %s", k->name, what, n,
                 ss_status_name(s0), ss_status_name(s1));
    cf_print_params(k, p);
    return false;
  }
  if (s0 != SS_OK) return true;
  if (fabs(l1 - l0) > LOSS_REL * fabs(l0) + LOSS_ABS) {
    ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: SIMD loss %.9g, scalar %.9g", k->name, what, n,
                 l1, l0);
    return false;
  }
  for (size_t i = 0; i < n; i++)
    if (fabs((double)g1[i] - g0[i]) > LOSS_REL * fabs(g0[i]) + LOSS_ABS_G) {
      ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: SIMD grad[%zu] %.9g, scalar %.9g", k->name,
                   what, n, i, g1[i], g0[i]);
      return false;
    }
  return true;
}

/* The buffers of the params and lengths sweeps. */
typedef struct {
  float *x, *g0, *g1;
} loss_bufs;

static loss_bufs bufs_alloc(size_t n) {
  loss_bufs b = {ss_test_alloc(n * 4), ss_test_alloc(n * 4), ss_test_alloc(n * 4)};
  return b;
}

/* One sweep run: logits of the run's kind, then run_case. */
static bool sweep_run(const cf_run *r, void *ctx, cf_count *cnt) {
  loss_bufs *b = ctx;
  cf_fill(b->x, r->n, SS_INPUT_LOGITS, r->kind, false, r->seed);
  return run_case(r->k, b->x, r->n, r->p, r->extreme, b->g0, b->g1, r->what, cnt);
}

TEST(conformance_loss_params) {
  loss_bufs b = bufs_alloc(PARAM_NS[NPARAM_NS - 1]);
  const cf_sweep s = {.family = SS_FAMILY_LOSS, .run = sweep_run, .ctx = &b};
  CHECK(CF_PARAMS_SWEEP("loss params", &s, PARAM_NS, 900, 6, 4), "see above");
}

TEST(conformance_loss_lengths) {
  loss_bufs b = bufs_alloc(CF_LARGE_N);
  const cf_sweep s = {.family = SS_FAMILY_LOSS, .run = sweep_run, .ctx = &b,
                      .length_seed = CF_SEED_BY_KIND, .adapter = &cf_loss_adapter};
  CHECK(cf_lengths_sweep("loss lengths", &s), "see above");
}

/* The loss's own bad inputs (beyond cf_bad_input_battery): all -Inf, a
   masked target (SS_ERR_DOMAIN, as ss_loss states), a NULL loss or a NULL
   gradient alone. */
static bool loss_extra(const cf_adapter *a, const ss_kernel_info *k, ss_impl impl,
                       float *const rows[CF_ROWS], size_t N, const double *p, size_t np) {
  bool ok = true;
  float *x = rows[0];
  const float *const in[CF_ROWS] = {x, NULL};
  for (size_t i = 0; i < N; i++) x[i] = -INFINITY;
  ok &= cf_expect(a, k, impl, in, N, p, np, SS_ERR_ALL_MASKED, "all -Inf");
  cf_fill(x, N, SS_INPUT_LOGITS, CF_NORMAL, false, 6);
  const long ti = cf_param_index(k, "target");
  if (ti >= 0) {
    const float keep = x[(size_t)p[ti]];
    x[(size_t)p[ti]] = -INFINITY;
    ok &= cf_expect(a, k, impl, in, N, p, np, SS_ERR_DOMAIN, "masked target");
    x[(size_t)p[ti]] = keep;
  }
  double l;
  if (ss_loss(k, impl, x, N, p, np, &l, NULL) != SS_ERR_NULL ||
      ss_loss(k, impl, x, N, p, np, NULL, x) != SS_ERR_NULL) {
    ss_test_fail(__FILE__, __LINE__, "%s: NULL loss / grad accepted", k->name);
    ok = false;
  }
  return ok;
}

TEST(conformance_loss_bad_inputs) {
  static const size_t where[] = {0, 5, 16, 36};
  CHECK(CF_FAMILY_BAD_INPUTS(&cf_loss_adapter, 37, where, loss_extra, 0), "see above");
}

/* grad vs central differences of the loss (double) along random +-1
   directions, steps h, h/2, h/4 (smoothness), where the loss is smooth. */
typedef struct {
  const ss_kernel_info *k;
  const double *p;
  float *grad; /* scratch */
} loss_ctx;
static double loss_of(const float *x, size_t n, const void *ctx) {
  const loss_ctx *c = ctx;
  double l;
  return ss_loss(c->k, SS_IMPL_SCALAR, x, n, c->p, c->k->nparams, &l, c->grad) == SS_OK ? l : NAN;
}

/* One backward run: grad against the differences at (x, p). */
static bool backward_run(const cf_run *r, void *ctx, cf_count *cnt) {
  (void)ctx;
  const ss_kernel_info *k = r->k;
  const size_t n = r->n, c = r->c, t = r->t;
  const double *p = r->p;
  float x[40], g[40], gt[40], work[80];
  cf_fill(x, n, SS_INPUT_LOGITS, r->kind, false, r->seed);
  double l;
  if (ss_loss(k, SS_IMPL_SCALAR, x, n, p, k->nparams, &l, g) != SS_OK) return true;
  ss_rng rng = {c + 13 * t};
  float v[40];
  for (size_t i = 0; i < n; i++) v[i] = (ss_rng_u64(&rng) & 1) ? 1.0f : -1.0f;
  const loss_ctx lc = {k, p, gt};
  double f[3], pred = 0.0;
  for (int s = 0; s < 3; s++)
    f[s] = fd_along32(loss_of, &lc, x, n, v, 2e-3 / (1 << s), g, s == 1 ? &pred : NULL, work);
  const double noise = 0x1p-20 * (fabs(l) + 1.0) / 5e-4;
  if (!fd_steady(f, 0.1 * FD_TOL * fabs(pred) + noise)) {
    cnt->fd_skipped++;
    return true;
  }
  cnt->fd_checked++;
  if (!fd_agrees(pred, f[1], FD_TOL, fabs(pred), noise)) {
    ss_test_fail(__FILE__, __LINE__, "%s %s n=%zu: <grad, v> = %.9g, differences %.9g %.9g %.9g",
                 k->name, r->what, n, pred, f[0], f[1], f[2]);
    return false;
  }
  return true;
}

TEST(conformance_loss_backward) {
  static const size_t ns[] = {1, 2, 3, 5, 8, 17, 40};
  const cf_sweep s = {.family = SS_FAMILY_LOSS, .run = backward_run, .backward_only = true,
                      .kinds = CF_KIND_BIT(CF_NORMAL) | CF_KIND_BIT(CF_MASKED),
                      .seed_stride = 41, .min_fd_checked = 10};
  CHECK(CF_PARAMS_SWEEP("loss backward", &s, ns, 950, 2, 2), "see above");
}
