/*
 * Layer-wise trust ratios: the step of a whole layer (here: the whole
 * vector w) is scaled by |w| / |update|, so every layer moves by a set
 * fraction of its own norm whatever its gradient's scale.
 *
 * LARS (You, Gitman & Ginsburg 2017, "Large Batch Training of Convolutional
 * Networks", Algorithm 1):
 *   local = eta |w| / (|g| + wd |w|)      (1 when |w| or |g| is 0)
 *   b <- mu b + lr local (g + wd w);  w <- w - b
 *
 * LAMB (You et al. 2020, "Large Batch Optimization for Deep Learning:
 * Training BERT in 76 minutes", Algorithm 2, phi = identity):
 *   m, v as Adam;  r = m_hat / (sqrt(v_hat) + eps) + wd w
 *   w <- w - lr (|w| / |r|) r              (ratio 1 when |w| or |r| is 0)
 *
 * LAMB computes r twice (once for |r|, once to step) from the stored m, v
 * with the same operations, so both passes see the same r and no scratch
 * is needed. Slots: lars b; lamb m, v.
 */
#include "common/impl_pair.h"
#include "optim/optim_internal.h"

static const ss_param_info lars_params[] = {
    SS_P_LR(1.0),
    SS_P_MOMENTUM(0.9),
    SS_P_WD(5e-4, SS_WD_L2),
    {.name = "trust", .type = SS_PARAM_FLOAT, .min = 0.0, .max = 1e3, .min_open = true, .def = 1e-3,
     .ui_min = 1e-5, .ui_max = 1.0, .log_scale = true, .help = "trust coefficient eta"},
};
static const ss_param_info lamb_params[] = {
    SS_P_LR(1e-3),
    SS_P_BETA("beta1", 0.9, "decay of the first moment m"),
    SS_P_BETA("beta2", 0.999, "decay of the second moment v"),
    SS_P_EPS(1e-6),
    SS_P_WD(1e-2, "weight decay added to the Adam direction (r + wd w)"),
};

static double trust_ratio(double wnorm, double unorm) {
  return wnorm > 0.0 && unorm > 0.0 ? wnorm / unorm : 1.0;
}

/* ---- LARS ---- */

typedef double (*dot_fn)(const float *, const float *, size_t);

static void lars_tail(float *w, const float *g, float *b, size_t i, size_t n, float mu, float c,
                      float wd) {
  for (; i < n; i++) {
    const float bi = mu * b[i] + c * (g[i] + wd * w[i]);
    b[i] = bi;
    w[i] = w[i] - bi;
  }
}

#if SS_HAVE_SIMD
static void lars_rows_simd(float *w, const float *g, float *b, size_t n, float mu, float c, float wd) {
  const v128_t vmu = wasm_f32x4_splat(mu), vc = wasm_f32x4_splat(c), vwd = wasm_f32x4_splat(wd);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t wi = wasm_v128_load(w + i);
    const v128_t bi = wasm_f32x4_add(wasm_f32x4_mul(vmu, wasm_v128_load(b + i)),
                                     wasm_f32x4_mul(vc, wasm_f32x4_add(wasm_v128_load(g + i), wasm_f32x4_mul(vwd, wi))));
    wasm_v128_store(b + i, bi);
    wasm_v128_store(w + i, wasm_f32x4_sub(wi, bi));
  }
  lars_tail(w, g, b, i, n, mu, c, wd);
}
#endif

/* lr times the local learning rate. */
static float lars_scale(dot_fn dot, const float *w, const float *g, size_t n, const double *p) {
  const double wn = sqrt(dot(w, w, n)), gn = sqrt(dot(g, g, n));
  const double local = wn > 0.0 && gn > 0.0 ? p[3] * wn / (gn + p[2] * wn) : 1.0;
  return ss_f32_sat(p[0] * local);
}

static ss_status lars_scalar(float *w, const float *g, size_t n, const double *p, uint64_t t,
                             float *b, double *sc) {
  (void)t, (void)sc;
  lars_tail(w, g, b, 0, n, (float)p[1], lars_scale(ss_dot64_scalar, w, g, n, p), (float)p[2]);
  return SS_OK;
}
#if SS_HAVE_SIMD
static ss_status lars_simd(float *w, const float *g, size_t n, const double *p, uint64_t t,
                           float *b, double *sc) {
  (void)t, (void)sc;
  lars_rows_simd(w, g, b, n, (float)p[1], lars_scale(ss_dot64_simd, w, g, n, p), (float)p[2]);
  return SS_OK;
}
#endif

/* ---- LAMB ---- */

/* b1, 1 - b1, b2, 1 - b2, 1 / bc1, 1 / sqrt(bc2), eps, wd */
typedef struct { float b1, b1c, b2, b2c, ib1, ib2, eps, wd; } lamb_consts;

static lamb_consts lamb_consts_at(const double *p, uint64_t t) {
  lamb_consts c;
  c.b1 = (float)p[1], c.b1c = (float)(1.0 - p[1]), c.b2 = (float)p[2], c.b2c = (float)(1.0 - p[2]);
  c.ib1 = (float)(1.0 / ss_bias_correction(p[1], t));
  c.ib2 = (float)(1.0 / sqrt(ss_bias_correction(p[2], t)));
  c.eps = ss_eps_f(p[3]), c.wd = (float)p[4];
  return c;
}

static inline float lamb_r(float mi, float vi, float wi, const lamb_consts *c) {
  return (mi * c->ib1) / (sqrtf(vi) * c->ib2 + c->eps) + c->wd * wi;
}

/* Pass 1 from i: moments, and sum r^2, sum w^2 into s[0], s[1]. */
static void lamb_moments_tail(const float *w, const float *g, float *m, float *v, size_t i,
                              size_t n, const lamb_consts *c, double s[2]) {
  for (; i < n; i++) {
    const float mi = c->b1 * m[i] + c->b1c * g[i];
    const float vi = c->b2 * v[i] + c->b2c * (g[i] * g[i]);
    m[i] = mi, v[i] = vi;
    const float r = lamb_r(mi, vi, w[i], c);
    s[0] += (double)r * r, s[1] += (double)w[i] * w[i];
  }
}
static void lamb_step_tail(float *w, const float *m, const float *v, size_t i, size_t n,
                           const lamb_consts *c, float step) {
  for (; i < n; i++) w[i] = w[i] - step * lamb_r(m[i], v[i], w[i], c);
}

static ss_status lamb_scalar(float *w, const float *g, size_t n, const double *p, uint64_t t,
                             float *sl, double *sc) {
  (void)sc;
  const lamb_consts c = lamb_consts_at(p, t);
  double s[2] = {0.0, 0.0};
  lamb_moments_tail(w, g, sl, sl + n, 0, n, &c, s);
  lamb_step_tail(w, sl, sl + n, 0, n, &c, ss_f32_sat(p[0] * trust_ratio(sqrt(s[1]), sqrt(s[0]))));
  return SS_OK;
}

#if SS_HAVE_SIMD
typedef struct { v128_t b1, b1c, b2, b2c, ib1, ib2, eps, wd; } lamb_vconsts;

static inline v128_t lamb_r4(v128_t mi, v128_t vi, v128_t wi, const lamb_vconsts *k) {
  const v128_t den = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_sqrt(vi), k->ib2), k->eps);
  return wasm_f32x4_add(wasm_f32x4_div(wasm_f32x4_mul(mi, k->ib1), den), wasm_f32x4_mul(k->wd, wi));
}

static ss_status lamb_simd(float *w, const float *g, size_t n, const double *p, uint64_t t,
                           float *sl, double *sc) {
  (void)sc;
  const lamb_consts c = lamb_consts_at(p, t);
  const lamb_vconsts k = {wasm_f32x4_splat(c.b1),  wasm_f32x4_splat(c.b1c), wasm_f32x4_splat(c.b2),
                          wasm_f32x4_splat(c.b2c), wasm_f32x4_splat(c.ib1), wasm_f32x4_splat(c.ib2),
                          wasm_f32x4_splat(c.eps), wasm_f32x4_splat(c.wd)};
  float *m = sl, *v = sl + n;
  double s[2] = {0.0, 0.0};
  size_t i = 0;
  /* squares exact in f64x2 lanes (as ss_dot64_simd): float squares
     underflow for |w| < 1e-19 (tiny weights read as |w| = 0, ratio 1: a
     step 1e7 times the scalar one) and overflow beyond 1.8e19 */
  while (i + 4 <= n) {
    const size_t end = n - i > SS_SUM_BLOCK ? i + SS_SUM_BLOCK : n;
    v128_t rr = wasm_f64x2_splat(0.0), ww = rr;
    for (; i + 4 <= end; i += 4) {
      const v128_t gi = wasm_v128_load(g + i), wi = wasm_v128_load(w + i);
      const v128_t mi = wasm_f32x4_add(wasm_f32x4_mul(k.b1, wasm_v128_load(m + i)), wasm_f32x4_mul(k.b1c, gi));
      const v128_t vi = wasm_f32x4_add(wasm_f32x4_mul(k.b2, wasm_v128_load(v + i)),
                                       wasm_f32x4_mul(k.b2c, wasm_f32x4_mul(gi, gi)));
      wasm_v128_store(m + i, mi);
      wasm_v128_store(v + i, vi);
      const v128_t r = lamb_r4(mi, vi, wi, &k);
      const v128_t rl = wasm_f64x2_promote_low_f32x4(r), wl = wasm_f64x2_promote_low_f32x4(wi);
      const v128_t rh = wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(r, r, 2, 3, 2, 3));
      const v128_t wh = wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(wi, wi, 2, 3, 2, 3));
      rr = wasm_f64x2_add(rr, wasm_f64x2_add(wasm_f64x2_mul(rl, rl), wasm_f64x2_mul(rh, rh)));
      ww = wasm_f64x2_add(ww, wasm_f64x2_add(wasm_f64x2_mul(wl, wl), wasm_f64x2_mul(wh, wh)));
    }
    s[0] += wasm_f64x2_extract_lane(rr, 0) + wasm_f64x2_extract_lane(rr, 1);
    s[1] += wasm_f64x2_extract_lane(ww, 0) + wasm_f64x2_extract_lane(ww, 1);
  }
  lamb_moments_tail(w, g, m, v, i, n, &c, s);
  const float step = ss_f32_sat(p[0] * trust_ratio(sqrt(s[1]), sqrt(s[0])));
  const v128_t vstep = wasm_f32x4_splat(step);
  for (i = 0; i + 4 <= n; i += 4) {
    const v128_t wi = wasm_v128_load(w + i);
    const v128_t r = lamb_r4(wasm_v128_load(m + i), wasm_v128_load(v + i), wi, &k);
    wasm_v128_store(w + i, wasm_f32x4_sub(wi, wasm_f32x4_mul(vstep, r)));
  }
  lamb_step_tail(w, m, v, i, n, &c, step);
  return SS_OK;
}
#endif

const ss_kernel_info ss_kernel_lars = {
    .name = "lars",
    .family = SS_FAMILY_OPTIMIZER,
    .summary = "momentum SGD with a layer-wise trust ratio eta |w| / (|g| + wd |w|)",
    .formula = "b <- mu b + lr eta |w| / (|g| + wd |w|) (g + wd w); w <- w - b",
    .paper = "You, Gitman & Ginsburg 2017, Large Batch Training of Convolutional Networks",
    .nparams = 4,
    .params = lars_params,
    .input = SS_INPUT_VALUES,
    .step = SS_IMPLS(lars),
    .opt_slots = 1,
};

const ss_kernel_info ss_kernel_lamb = {
    .name = "lamb",
    .family = SS_FAMILY_OPTIMIZER,
    .summary = "Adam direction with a layer-wise trust ratio |w| / |r|",
    .formula = "r = m_hat / (sqrt(v_hat) + eps) + wd w; w <- w - lr (|w| / |r|) r",
    .paper = "You et al. 2020, Large Batch Optimization for Deep Learning: Training BERT in 76 "
             "minutes",
    .nparams = 5,
    .params = lamb_params,
    .input = SS_INPUT_VALUES,
    .step = SS_IMPLS(lamb),
    .opt_slots = 2,
};
