/*
 * The calibration inputs of the model's weight matrices
 * (ss_model_linear_inputs) against the float64 model of model_reference.h,
 * which records the rows each matrix multiplies as softscope.h describes
 * them: for every matrix of shapes with one and two layers, the MLP on and
 * off, each kind of positions, causal or not, in every impl,
 *   - *samples is batch n (wk, wv, an earlier layer's matrices) or batch
 *     (the last layer's wq, wo, w1, w2 and the unembedding);
 *   - |x - x64| <= IN_REL max |x64| over the matrix's inputs (the float
 *     forward's rounding, relative to the activations' scale), with x
 *     transposed: cols x samples;
 * and its bad input: a tensor index past the count, a tensor that is no
 * linear layer's weight, a buffer too small (the count still reported,
 * nothing written), NULL pointers, a workspace too small.
 * The worst ratio to the bound is printed.
 */
#include <string.h>

#include "conformance.h"
#include "model_reference.h"
#include "model_testing.h"

#define IN_REL 1e-5
#define IB 2
#define IN 5

typedef struct {
  uint32_t d, heads, layers, mlp, positions, causal;
} ishape;

static const ishape SHAPES[] = {
    {8, 2, 1, 1, SS_POSITIONS_NONE, 0},
    {8, 2, 2, 1, SS_POSITIONS_SINUSOIDAL, 1},
    {8, 1, 2, 0, SS_POSITIONS_LEARNED, 0},
};

typedef struct {
  ss_model_config cfg;
  double np[CF_MAX_PARAMS], lp[1];
  uint32_t a[IB * IN], b[IB * IN], t[IB];
  float f[IB * IN];
  ss_model_batch batch;
  float *params;
  void *work;
  size_t work_bytes;
} ienv;

/* A model of shape s on a max_retrieval batch, with parameters N(0, 0.4^2)
   (gains 1) so that attention is far from uniform. */
static void ienv_make(ienv *E, const ishape *s, const char *normalizer, uint64_t seed) {
  memset(E, 0, sizeof *E);
  const ss_kernel_info *nk = ss_kernel_find(normalizer, SS_FAMILY_NORMALIZER);
  cf_defaults(nk, IN, E->np);
  const ss_task task = {SS_TASK_MAX_RETRIEVAL, 4, 0};
  E->cfg = (ss_model_config){.d = s->d, .heads = s->heads, .layers = s->layers, .mlp = s->mlp,
                             .positions = s->positions, .max_n = 8, .causal = s->causal,
                             .seed = seed,
                             .attention = ss_kernel_find("sdpa", SS_FAMILY_ATTENTION),
                             .normalizer = nk, .norm_params = E->np, .norm_nparams = nk->nparams,
                             .loss = ss_kernel_find("cross_entropy", SS_FAMILY_LOSS),
                             .loss_params = E->lp, .loss_nparams = 1};
  ss_task_shape sh;
  ss_task_shape_of(&task, &sh);
  E->cfg.vocab_a = sh.vocab_a, E->cfg.vocab_b = sh.vocab_b, E->cfg.classes = sh.classes;
  E->cfg.feature = sh.feature, E->cfg.loss_at = sh.loss_at;
  ss_task_batch(&task, seed, 0, IB, IN, E->a, E->b, E->f, E->t);
  E->batch = (ss_model_batch){IB, IN, E->a, E->b, E->f, E->t};
  const size_t P = ss_model_param_count(&E->cfg);
  E->params = ss_test_alloc(P * 4);
  ss_model_init(&E->cfg, E->params);
  ss_rng r = {seed + 5};
  for (size_t i = 0; i < P; i++) E->params[i] = (float)(0.4 * ss_rng_normal(&r));
  const size_t nt = ss_model_tensor_count(&E->cfg);
  for (size_t i = 0; i < nt; i++) {
    ss_model_tensor t;
    ss_model_tensor_at(&E->cfg, i, &t);
    if (strstr(t.name, "_norm"))
      for (size_t j = 0; j < t.cols; j++) E->params[t.offset + j] = 1.0f;
  }
  E->work_bytes = ss_model_forward_workspace_size(&E->cfg, IB, IN);
  E->work = ss_test_alloc(E->work_bytes);
}

static bool is_linear(const char *name) {
  return !strcmp(name, "wq") || !strcmp(name, "wk") || !strcmp(name, "wv") ||
         !strcmp(name, "wo") || !strcmp(name, "w1") || !strcmp(name, "w2") ||
         !strcmp(name, "unembed");
}

TEST(model_linear_inputs_match_float64) {
  double worst = 0;
  size_t matrices = 0;
  for (size_t si = 0; si < sizeof SHAPES / sizeof SHAPES[0]; si++) {
    const char *norms[] = {"softmax", "ssmax"};
    for (size_t ni = 0; ni < 2; ni++) {
      ienv E;
      ienv_make(&E, &SHAPES[si], norms[ni], 40 + si);
      const ss_model_config *cfg = &E.cfg;
      const size_t P = ss_model_param_count(cfg), nt = ss_model_tensor_count(cfg);
      double *P64 = ss_test_alloc(P * 8);
      mt_widen(E.params, P, P64);
      for (size_t ti = 0; ti < nt; ti++) {
        ss_model_tensor t;
        ss_model_tensor_at(cfg, ti, &t);
        if (!is_linear(t.name)) continue;
        const bool all_rows = !strcmp(t.name, "wk") || !strcmp(t.name, "wv") ||
                              (t.layer + 1 < cfg->layers && strcmp(t.name, "unembed"));
        const size_t want = all_rows ? IB * IN : IB;
        double *x64 = ss_test_alloc(IB * IN * t.cols * 8);
        mr_capture cap = {t.offset, x64, 0};
        CHECK(!isnan(mr_forward(cfg, P64, &E.batch, NULL, &cap)), "float64 forward");
        CHECK(cap.count == want, "%s: the float64 model recorded %zu rows, want %zu", t.name,
              cap.count, want);
        double scale = 0;
        for (size_t i = 0; i < want * t.cols; i++) scale = fmax(scale, fabs(x64[i]));
        CHECK(scale > 0, "%s: all-zero inputs", t.name);
        float *x = ss_test_alloc(want * t.cols * 4);
        FOR_EACH_IMPL(impl) {
          size_t samples = 0;
          CHECK_STATUS(ss_model_linear_inputs(cfg, impl, E.params, &E.batch, E.work, E.work_bytes,
                                              ti, x, want * t.cols, &samples),
                       SS_OK);
          CHECK(samples == want, "%s layer %u: %zu samples, want %zu", t.name, t.layer, samples,
                want);
          for (size_t r = 0; r < want; r++)
            for (size_t c = 0; c < t.cols; c++) {
              const double e = fabs(x[c * want + r] - x64[r * t.cols + c]) / (IN_REL * scale);
              worst = e > worst ? e : worst;
              CHECK(e <= 1, "%s %s layer %u %s: x[%zu][%zu] = %.9g, float64 %.9g", norms[ni],
                    ss_impl_name(impl), t.layer, t.name, c, r, x[c * want + r],
                    x64[r * t.cols + c]);
            }
        }
        matrices++;
      }
    }
  }
  CHECK(matrices >= 30, "only %zu matrices", matrices);
  printf("    %zu matrices; worst ratio to bound %.3g\n", matrices, worst);
}

TEST(model_linear_inputs_bad_arguments) {
  ienv E;
  ienv_make(&E, &SHAPES[1], "softmax", 3);
  const ss_model_config *cfg = &E.cfg;
  const size_t nt = ss_model_tensor_count(cfg), cap = IB * IN * 4 * 8;
  float *x = ss_test_alloc(cap * 4);
  size_t samples = 0, wk = nt, last_wq = nt;
  for (size_t ti = 0; ti < nt; ti++) {
    ss_model_tensor t;
    ss_model_tensor_at(cfg, ti, &t);
    if (!is_linear(t.name)) {
      samples = 99;
      CHECK_STATUS(ss_model_linear_inputs(cfg, SS_IMPL_SCALAR, E.params, &E.batch, E.work,
                                          E.work_bytes, ti, x, cap, &samples),
                   SS_ERR_DOMAIN);
      CHECK(samples == 99, "%s: samples written on an error", t.name);
    }
    if (!strcmp(t.name, "wk") && t.layer == 0) wk = ti;
    if (!strcmp(t.name, "wq") && t.layer == 1) last_wq = ti;
  }
  CHECK(wk < nt && last_wq < nt, "tensors");
#define CALL(tensor, out, out_cap, samp, work_bytes) \
  ss_model_linear_inputs(cfg, SS_IMPL_SCALAR, E.params, &E.batch, E.work, work_bytes, tensor, out, \
                         out_cap, samp)
  CHECK_STATUS(CALL(nt, x, cap, &samples, E.work_bytes), SS_ERR_LENGTH);
  CHECK_STATUS(CALL((size_t)-1, x, cap, &samples, E.work_bytes), SS_ERR_LENGTH);
  CHECK_STATUS(CALL(wk, NULL, cap, &samples, E.work_bytes), SS_ERR_NULL);
  CHECK_STATUS(CALL(wk, x, cap, NULL, E.work_bytes), SS_ERR_NULL);
  CHECK_STATUS(CALL(wk, x, cap, &samples, E.work_bytes - 4), SS_ERR_BUFFER);
  /* a buffer one float short: the count reported, nothing written */
  for (size_t i = 0; i < cap; i++) x[i] = -7.0f;
  samples = 0;
  CHECK_STATUS(CALL(wk, x, IB * IN * 8 - 1, &samples, E.work_bytes), SS_ERR_BUFFER);
  CHECK(samples == IB * IN, "wk: %zu samples reported, want %d", samples, IB * IN);
  samples = 0;
  CHECK_STATUS(CALL(last_wq, x, 0, &samples, E.work_bytes), SS_ERR_BUFFER);
  CHECK(samples == IB, "the last layer's wq: %zu samples reported, want %d", samples, IB);
  for (size_t i = 0; i < cap; i++) CHECK(x[i] == -7.0f, "x[%zu] written on SS_ERR_BUFFER", i);
  CHECK_STATUS(CALL(last_wq, x, IB * 8, &samples, E.work_bytes), SS_OK);
  CHECK(x[IB * 8] == -7.0f, "written past cols samples");
  CHECK_STATUS(ss_model_linear_inputs(cfg, (ss_impl)SS_IMPL_COUNT, E.params, &E.batch, E.work,
                                      E.work_bytes, wk, x, cap, &samples),
               SS_ERR_UNSUPPORTED);
  CHECK_STATUS(ss_model_linear_inputs(NULL, SS_IMPL_SCALAR, E.params, &E.batch, E.work,
                                      E.work_bytes, wk, x, cap, &samples),
               SS_ERR_NULL);
  uint32_t bad = E.a[0];
  E.a[0] = cfg->vocab_a;
  CHECK_STATUS(CALL(wk, x, cap, &samples, E.work_bytes), SS_ERR_DOMAIN);
  E.a[0] = bad;
#undef CALL
}
