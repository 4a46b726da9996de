/*
 * A seeded training run of the tiny model on max_retrieval (Velickovic et
 * al. 2024): TRAIN_STEPS steps of AdamW (the registry's, lr TRAIN_LR with a
 * cosine schedule and warm-up) on batches of TRAIN_BATCH examples of n in
 * [4, 16] items (n drawn per step from the step's own Philox draw), then the
 * accuracy on a held-out test set (another seed) at n = 16, in
 * distribution. It must reach TRAIN_ACC; a second run from the same seed
 * must give the same parameters bit for bit after its first RERUN_STEPS
 * steps (the same build: every sum in a fixed order). The build's default
 * impl trains (the scalar build: the scalar reference; the others: SIMD,
 * whose gradients test_model_grad.c holds to the scalar ones), so each impl
 * trains in some build and the suite's time stays low.
 */
#include <string.h>

#include "harness.h"

#define TRAIN_STEPS 400
#define TRAIN_BATCH 32
#define TRAIN_LR 1e-2
#define TRAIN_ACC 0.9
#define TEST_BATCH 256
#define RERUN_STEPS 60 /* the rerun: the first steps again (the suite's time) */

static const ss_task TASK = {SS_TASK_MAX_RETRIEVAL, 8, 0};

static ss_model_config train_config(const double *np, const double *lp) {
  ss_model_config c = {.d = 32, .heads = 2, .layers = 1, .mlp = 1, .feature = 1,
                       .positions = SS_POSITIONS_NONE, .seed = 5,
                       .attention = ss_kernel_find("sdpa", SS_FAMILY_ATTENTION),
                       .normalizer = ss_kernel_find("softmax", SS_FAMILY_NORMALIZER),
                       .norm_params = np, .norm_nparams = 0,
                       .loss = ss_kernel_find("cross_entropy", SS_FAMILY_LOSS),
                       .loss_params = lp, .loss_nparams = 1};
  ss_task_shape sh;
  ss_task_shape_of(&TASK, &sh);
  c.vocab_a = sh.vocab_a, c.vocab_b = sh.vocab_b, c.classes = sh.classes;
  c.feature = sh.feature, c.loss_at = sh.loss_at;
  return c;
}

/* n in [4, 16] for step t (a Philox uniform of its own stream). */
static size_t train_n(uint64_t t) {
  float u;
  ss_uniform(77, 1, t, 1, &u);
  return 4 + (size_t)(u * 13.0f);
}

typedef struct {
  float *params;
  size_t count;
  double accuracy, last_loss;
  ss_status status;
} run_result;

/* steps of training, then the test accuracy (when steps is TRAIN_STEPS);
   snap (may be NULL) receives the parameters after RERUN_STEPS steps. */
static run_result train(ss_impl impl, uint64_t steps, float *snap) {
  double np[1] = {0}, lp[1] = {0};
  const ss_model_config cfg = train_config(np, lp);
  run_result r = {.count = ss_model_param_count(&cfg)};
  r.params = ss_test_alloc(r.count * 4);
  float *grads = ss_test_alloc(r.count * 4);
  const ss_kernel_info *adamw = ss_kernel_find("adamw", SS_FAMILY_OPTIMIZER);
  double hp[5] = {TRAIN_LR, 0.9, 0.999, 1e-8, 1e-2};
  const ss_model_optim opt = {adamw, hp, 5, SS_SCHEDULE_COSINE, TRAIN_STEPS, 20, 0, 0.1};
  float *state = ss_test_alloc(ss_model_opt_state_size(&cfg, adamw) * 4 + 4);
  const size_t nt = ss_model_tensor_count(&cfg);
  double *scalars = ss_test_alloc(nt * SS_OPT_SCALARS * 8);
  memset(state, 0, ss_model_opt_state_size(&cfg, adamw) * 4);
  memset(scalars, 0, nt * SS_OPT_SCALARS * 8);
  const size_t maxb = TEST_BATCH * 16;
  const size_t wbytes = ss_model_workspace_size(&cfg, TEST_BATCH, 16);
  void *work = ss_test_alloc(wbytes);
  uint32_t *ta = ss_test_alloc(maxb * 4), *tb = ss_test_alloc(maxb * 4), *tg = ss_test_alloc(TEST_BATCH * 4);
  float *f = ss_test_alloc(maxb * 4);
  r.status = ss_model_init(&cfg, r.params);
  for (uint64_t t = 0; t < steps && r.status == SS_OK; t++) {
    if (snap && t == RERUN_STEPS) memcpy(snap, r.params, r.count * 4);
    const size_t n = train_n(t);
    ss_task_batch(&TASK, 1, t, TRAIN_BATCH, n, ta, tb, f, tg);
    const ss_model_batch b = {TRAIN_BATCH, n, ta, NULL, f, tg};
    ss_model_outputs out = {0};
    r.status = ss_model_step(&cfg, impl, &opt, r.params, grads, state, scalars, &b, work, wbytes, &out);
    r.last_loss = out.loss;
  }
  if (r.status != SS_OK || steps != TRAIN_STEPS) return r;
  ss_task_batch(&TASK, 2, 0, TEST_BATCH, 16, ta, tb, f, tg);
  const ss_model_batch test = {TEST_BATCH, 16, ta, NULL, f, tg};
  ss_model_outputs out = {0};
  r.status = ss_model_forward(&cfg, impl, r.params, &test, work, wbytes, &out);
  r.accuracy = out.accuracy;
  return r;
}

TEST(model_train_max_retrieval_reaches_accuracy_and_reruns_bit_identically) {
  {
    const ss_impl impl = ss_impl_default();
    double np[1] = {0}, lp[1] = {0};
    const ss_model_config cfg = train_config(np, lp);
    float *snap = ss_test_alloc(ss_model_param_count(&cfg) * 4);
    const run_result a = train(impl, TRAIN_STEPS, snap);
    CHECK_STATUS(a.status, SS_OK);
    printf("    %s: accuracy %.4f at n = 16 after %d steps (last loss %.4f)\n", ss_impl_name(impl),
           a.accuracy, TRAIN_STEPS, a.last_loss);
    CHECK(a.accuracy >= TRAIN_ACC, "%s: accuracy %.4f < %.2f", ss_impl_name(impl), a.accuracy,
          TRAIN_ACC);
    const run_result b = train(impl, RERUN_STEPS, NULL);
    CHECK_STATUS(b.status, SS_OK);
    CHECK(memcmp(snap, b.params, b.count * 4) == 0,
          "%s: the rerun's parameters after %d steps differ", ss_impl_name(impl), RERUN_STEPS);
  }
}
