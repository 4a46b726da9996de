/*
 * SAGE (Lee & Kim 2026, "SAGE: Sign-Adaptive Gradient for Memory-Efficient
 * LLM Optimization", arXiv 2604.07663): Lion's sign direction times a
 * per-dimension damper H in [0, 1] built from an O(d) statistic.
 *
 * With w read as a rows x cols matrix (cols = d; an embedding table is
 * V x d; cols = 0 means one row, i.e. element-wise):
 *
 *   w <- w (1 - lr wd)
 *   s_j = (1/rows) sum_i |g_ij|                 (gradient magnitude snapshot)
 *   S_j <- b2 S_j + (1 - b2) s_j,  S_hat = S / (1 - b2^t)
 *   sigma = rms_j(S_hat_j),  gamma = rms_j(s_j)
 *   H_j = min(sigma / (S_hat_j + eps), gamma / (s_j + eps), 1)
 *   c = b1 m + (1 - b1) g;  w <- w - lr sign(c) H;  m <- b2 m + (1 - b2) g
 *
 * H <= 1 by construction (the "safe damper"): a dimension whose smoothed or
 * current magnitude is above the layer's RMS gets a smaller step; the others
 * move like Lion. Slots: m (n), S (cols), s then H (cols).
 */
#include "common/impl_pair.h"
#include "optim/optim_internal.h"

static const ss_param_info sage_params[] = {
    SS_P_LR(1e-4),
    SS_P_BETA("beta1", 0.9, "weight of m in the update direction"),
    SS_P_BETA("beta2", 0.99, "decay of the momentum m and of the magnitude EMA S"),
    SS_P_EPS(1e-8),
    SS_P_WD(0.0, SS_WD_DECOUPLED),
    {.name = "cols", .type = SS_PARAM_INT, .min = 0.0, .max = (double)SS_MAX_N, .def = 0.0,
     .ui_min = 0.0, .ui_max = 1024.0, .n_bound = SS_N_BOUND_LE,
     .help = "feature dimension d: w is (n / d) x d and S has d entries (0: element-wise)"},
};

typedef double (*dot_fn)(const float *, const float *, size_t);
typedef void (*pass_fn)(float *w, const float *g, float *m, const float *h, size_t rows,
                        size_t cols, const float c[6]);

/* b1, 1 - b1, b2, 1 - b2, lr, 1 - lr wd */
static void dir_rows_scalar(float *w, const float *g, float *m, const float *h, size_t rows,
                            size_t cols, const float c[6]) {
  for (size_t r = 0, i = 0; r < rows; r++)
    for (size_t j = 0; j < cols; j++, i++) {
      const float d = ss_sign_scalar(c[0] * m[i] + c[1] * g[i]);
      w[i] = c[5] * w[i] - c[4] * (d * h[j]);
      m[i] = c[2] * m[i] + c[3] * g[i];
    }
}

#if SS_HAVE_SIMD
static void dir_rows_simd(float *w, const float *g, float *m, const float *h, size_t rows,
                          size_t cols, const float c[6]) {
  const v128_t b1 = wasm_f32x4_splat(c[0]), b1c = wasm_f32x4_splat(c[1]);
  const v128_t b2 = wasm_f32x4_splat(c[2]), b2c = wasm_f32x4_splat(c[3]);
  const v128_t lr = wasm_f32x4_splat(c[4]), keep = wasm_f32x4_splat(c[5]);
  for (size_t r = 0; r < rows; r++) {
    float *wr = w + r * cols, *mr = m + r * cols;
    const float *gr = g + r * cols;
    size_t j = 0;
    for (; j + 4 <= cols; j += 4) {
      const v128_t mi = wasm_v128_load(mr + j), gi = wasm_v128_load(gr + j);
      const v128_t d = ss_sign_simd(wasm_f32x4_add(wasm_f32x4_mul(b1, mi), wasm_f32x4_mul(b1c, gi)));
      const v128_t step = wasm_f32x4_mul(lr, wasm_f32x4_mul(d, wasm_v128_load(h + j)));
      wasm_v128_store(wr + j, wasm_f32x4_sub(wasm_f32x4_mul(keep, wasm_v128_load(wr + j)), step));
      wasm_v128_store(mr + j, wasm_f32x4_add(wasm_f32x4_mul(b2, mi), wasm_f32x4_mul(b2c, gi)));
    }
    dir_rows_scalar(wr + j, gr + j, mr + j, h + j, 1, cols - j, c);
  }
}
#endif

/* s_j = mean_i |g_ij| into h, and S <- b2 S + (1 - b2) s. */
static void stats_scalar(const float *g, float *S, float *h, size_t rows, size_t cols, float inv_rows,
                         float b2, float b2c) {
  for (size_t j = 0; j < cols; j++) h[j] = fabsf(g[j]);
  for (size_t r = 1; r < rows; r++)
    for (size_t j = 0; j < cols; j++) h[j] += fabsf(g[r * cols + j]);
  for (size_t j = 0; j < cols; j++) {
    if (rows > 1) h[j] *= inv_rows;
    S[j] = b2 * S[j] + b2c * h[j];
  }
}

/* H_j = min(sigma / (S_j / bc2 + eps), gamma / (s_j + eps), 1), over h = s. */
static void damper_scalar(const float *S, float *h, size_t cols, float sigma, float gam,
                          float inv_bc2, float eps) {
  for (size_t j = 0; j < cols; j++) {
    const float a = sigma / (S[j] * inv_bc2 + eps), b = gam / (h[j] + eps);
    const float hj = a < b ? a : b;
    h[j] = hj < 1.0f ? hj : 1.0f;
  }
}

#if SS_HAVE_SIMD
static void stats_simd(const float *g, float *S, float *h, size_t rows, size_t cols, float inv_rows,
                       float b2, float b2c) {
  const v128_t vb2 = wasm_f32x4_splat(b2), vb2c = wasm_f32x4_splat(b2c), vinv = wasm_f32x4_splat(inv_rows);
  size_t j = 0;
  for (; j + 4 <= cols; j += 4) {
    v128_t a = wasm_f32x4_abs(wasm_v128_load(g + j));
    for (size_t r = 1; r < rows; r++) a = wasm_f32x4_add(a, wasm_f32x4_abs(wasm_v128_load(g + r * cols + j)));
    if (rows > 1) a = wasm_f32x4_mul(a, vinv);
    wasm_v128_store(h + j, a);
    wasm_v128_store(S + j, wasm_f32x4_add(wasm_f32x4_mul(vb2, wasm_v128_load(S + j)), wasm_f32x4_mul(vb2c, a)));
  }
  for (; j < cols; j++) { /* the same operations, one column */
    float a = fabsf(g[j]);
    for (size_t r = 1; r < rows; r++) a += fabsf(g[r * cols + j]);
    if (rows > 1) a *= inv_rows;
    h[j] = a;
    S[j] = b2 * S[j] + b2c * a;
  }
}

static void damper_simd(const float *S, float *h, size_t cols, float sigma, float gam,
                        float inv_bc2, float eps) {
  const v128_t vs = wasm_f32x4_splat(sigma), vg = wasm_f32x4_splat(gam), vib = wasm_f32x4_splat(inv_bc2);
  const v128_t ve = wasm_f32x4_splat(eps), one = wasm_f32x4_splat(1.0f);
  size_t j = 0;
  for (; j + 4 <= cols; j += 4) {
    const v128_t a = wasm_f32x4_div(vs, wasm_f32x4_add(wasm_f32x4_mul(wasm_v128_load(S + j), vib), ve));
    const v128_t b = wasm_f32x4_div(vg, wasm_f32x4_add(wasm_v128_load(h + j), ve));
    const v128_t m = wasm_v128_bitselect(a, b, wasm_f32x4_lt(a, b));
    wasm_v128_store(h + j, wasm_v128_bitselect(m, one, wasm_f32x4_lt(m, one)));
  }
  damper_scalar(S + j, h + j, cols - j, sigma, gam, inv_bc2, eps);
}
#endif

typedef void (*stats_fn)(const float *, float *, float *, size_t, size_t, float, float, float);
typedef void (*damper_fn)(const float *, float *, size_t, float, float, float, float);

/* Statistics (O(n) to sum |g| down the columns, then O(cols)), then the step. */
SS_ALWAYS_INLINE ss_status run(dot_fn dot, stats_fn stats, damper_fn damper, pass_fn pass, float *w,
                               const float *g, size_t n, const double *p, uint64_t t, float *slots) {
  const size_t cols = p[5] > 0.0 ? (size_t)p[5] : n;
  if (n % cols) return SS_ERR_LENGTH;
  const size_t rows = n / cols;
  float *m = slots, *S = slots + n, *h = slots + 2 * n;
  const float b2 = (float)p[2], b2c = (float)(1.0 - p[2]);
  stats(g, S, h, rows, cols, (float)(1.0 / (double)rows), b2, b2c);
  const double bc2 = ss_bias_correction(p[2], t);
  const float sigma = ss_f32_sat(sqrt(dot(S, S, cols) / (double)cols) / bc2);
  const float gam = (float)sqrt(dot(h, h, cols) / (double)cols);
  damper(S, h, cols, sigma, gam, (float)(1.0 / bc2), ss_eps_f(p[3]));
  const float c[6] = {(float)p[1], (float)(1.0 - p[1]), b2, b2c, (float)p[0],
                      (float)(1.0 - p[0] * p[4])};
  pass(w, g, m, h, rows, cols, c);
  return SS_OK;
}

static ss_status sage_scalar(float *w, const float *g, size_t n, const double *p, uint64_t t,
                             float *slots, double *sc) {
  (void)sc;
  return run(ss_dot64_scalar, stats_scalar, damper_scalar, dir_rows_scalar, w, g, n, p, t, slots);
}
#if SS_HAVE_SIMD
static ss_status sage_simd(float *w, const float *g, size_t n, const double *p, uint64_t t,
                           float *slots, double *sc) {
  (void)sc;
  return run(ss_dot64_simd, stats_simd, damper_simd, dir_rows_simd, w, g, n, p, t, slots);
}
#endif

const ss_kernel_info ss_kernel_sage = {
    .name = "sage",
    .family = SS_FAMILY_OPTIMIZER,
    .summary = "Lion's sign direction times an O(d) adaptive damper bounded by 1",
    .formula = "H_j = min(rms(S_hat) / (S_hat_j + eps), rms(s) / (s_j + eps), 1), "
               "s_j = mean_i |g_ij|; w <- w - lr sign(b1 m + (1-b1) g) H",
    .paper = "Lee & Kim 2026, SAGE: Sign-Adaptive Gradient for Memory-Efficient LLM Optimization",
    .nparams = 6,
    .params = sage_params,
    .input = SS_INPUT_VALUES,
    .step = SS_IMPLS(sage),
    .opt_slots = 3,
};
