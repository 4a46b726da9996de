/* A C program training softscope's tiny attention model on max retrieval
   (Velickovic et al. 2024, "softmax is not enough"): each example is a set of
   items with a value class and a priority, and a query; the answer is the
   value of the highest-priority item. It trains at n = 4 .. 16 items with the
   registry's AdamW (found by name), then prints the accuracy on held-out
   examples at n = 16 (the training length) and n = 256 (16x longer).
   The caller owns every buffer: malloc of the sizes the API reports.
   Build and run: make example  (the examples suite checks its output). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "softscope.h"

enum { STEPS = 400, BATCH = 32, TRAIN_N = 16, TEST_BATCH = 256 };
static const size_t TEST_N[] = {16, 256};

/* Every status is checked: a message naming the call, then exit 1. */
static void check(ss_status s, const char *what) {
  if (s == SS_OK) return;
  fprintf(stderr, "train: %s: %s (%s)\n", what, ss_status_str(s), ss_status_name(s));
  exit(1);
}

/* Zeroed (the optimizer state starts at 0); at least one byte, so that a
   size of 0 (sgd keeps no state) is still a buffer. */
static void *alloc(size_t bytes, const char *what) {
  void *p = calloc(1, bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "train: %s: out of memory\n", what);
    exit(1);
  }
  return p;
}

static const ss_kernel_info *find(const char *name, ss_family family) {
  const ss_kernel_info *k = ss_kernel_find(name, family);
  if (!k) {
    fprintf(stderr, "train: no kernel named %s\n", name);
    exit(1);
  }
  return k;
}

/* A kernel's parameters at their registry defaults, in registry order. */
static double *defaults(const ss_kernel_info *k) {
  double *p = alloc(k->nparams * sizeof(double), "kernel parameters");
  for (size_t i = 0; i < k->nparams; i++) p[i] = k->params[i].def;
  return p;
}

int main(void) {
  const ss_impl impl = ss_impl_default();

  /* The task and a model sized for it: d 32, 2 heads, one layer with the MLP,
     softmax attention over a set (no positions), cross-entropy loss. */
  const ss_task task = {.kind = SS_TASK_MAX_RETRIEVAL, .values = 8};
  const ss_kernel_info *norm = find("softmax", SS_FAMILY_NORMALIZER);
  double *norm_params = defaults(norm); /* none for softmax; ssmax's s */
  const double loss_params[1] = {0};    /* the target: filled per example */
  ss_model_config cfg = {.d = 32, .heads = 2, .layers = 1, .mlp = 1,
                         .positions = SS_POSITIONS_NONE, .seed = 5,
                         .attention = find("sdpa", SS_FAMILY_ATTENTION),
                         .normalizer = norm, .norm_params = norm_params,
                         .norm_nparams = norm->nparams,
                         .loss = find("cross_entropy", SS_FAMILY_LOSS),
                         .loss_params = loss_params, .loss_nparams = 1};
  ss_task_shape shape; /* the task's vocabularies, feature and loss position */
  check(ss_task_shape_of(&task, &shape), "ss_task_shape_of");
  cfg.vocab_a = shape.vocab_a, cfg.vocab_b = shape.vocab_b, cfg.classes = shape.classes;
  cfg.feature = shape.feature, cfg.loss_at = shape.loss_at;
  check(ss_model_check(&cfg), "ss_model_check");

  /* The optimizer: the registry's adamw, its defaults with lr = 1e-2, on a
     cosine schedule (20 steps of warm-up, down to 0.1 lr). */
  const ss_kernel_info *adamw = find("adamw", SS_FAMILY_OPTIMIZER);
  double *hp = defaults(adamw);
  for (size_t i = 0; i < adamw->nparams; i++)
    if (strcmp(adamw->params[i].name, "lr") == 0) hp[i] = 1e-2;
  const ss_model_optim opt = {.optimizer = adamw, .params = hp, .nparams = adamw->nparams,
                              .schedule = SS_SCHEDULE_COSINE, .total = STEPS, .warmup = 20,
                              .min_factor = 0.1};

  /* Caller-owned memory, of the sizes the API reports. */
  const size_t count = ss_model_param_count(&cfg); /* 0 only for a rejected cfg */
  const size_t tensors = ss_model_tensor_count(&cfg);
  const size_t train_bytes = ss_model_workspace_size(&cfg, BATCH, TRAIN_N);
  const size_t test_bytes = ss_model_forward_workspace_size(&cfg, TEST_BATCH, TEST_N[1]);
  const size_t work_bytes = train_bytes > test_bytes ? train_bytes : test_bytes;
  const size_t items = TEST_BATCH * TEST_N[1]; /* the largest batch x n */
  float *params = alloc(count * sizeof(float), "parameters");
  float *grads = alloc(count * sizeof(float), "gradients");
  float *state = alloc(ss_model_opt_state_size(&cfg, adamw) * sizeof(float), "optimizer state");
  double *scalars = alloc(tensors * SS_OPT_SCALARS * sizeof(double), "optimizer scalars");
  if (!train_bytes || !test_bytes) {
    fprintf(stderr, "train: no workspace size for this model, batch and n\n");
    return 1;
  }
  void *work = alloc(work_bytes, "workspace");
  uint32_t *tokens_a = alloc(items * sizeof(uint32_t), "tokens_a");
  uint32_t *tokens_b = alloc(items * sizeof(uint32_t), "tokens_b");
  float *feature = alloc(items * sizeof(float), "feature");
  uint32_t *target = alloc(TEST_BATCH * sizeof(uint32_t), "target");

  printf("max_retrieval, %u values: d %u, %u heads, %u layer + MLP, %zu parameters; %s, %s (%s)\n",
         task.values, cfg.d, cfg.heads, cfg.layers, count, cfg.normalizer->name, adamw->name,
         ss_impl_name(impl));
  check(ss_model_init(&cfg, params), "ss_model_init");

  /* Training: batch t is a pure function of (task, seed 1, t, batch, n). */
  for (uint64_t t = 0; t < STEPS; t++) {
    const size_t n = 4 + t % (TRAIN_N - 3); /* n = 4 .. 16 in turn */
    check(ss_task_batch(&task, 1, t, BATCH, n, tokens_a, tokens_b, feature, target),
          "ss_task_batch");
    const ss_model_batch b = {BATCH, n, tokens_a, tokens_b, feature, target};
    ss_model_outputs out = {0};
    check(ss_model_step(&cfg, impl, &opt, params, grads, state, scalars, &b, work, work_bytes, &out),
          "ss_model_step");
    if ((t + 1) % 50 == 0)
      printf("step %3u  n %2zu  loss %.4f  accuracy %.4f\n", (unsigned)(t + 1), n, out.loss,
             out.accuracy);
  }

  /* The test: held-out examples (seed 2) at the training length and past it. */
  for (size_t i = 0; i < sizeof TEST_N / sizeof TEST_N[0]; i++) {
    const size_t n = TEST_N[i];
    check(ss_task_batch(&task, 2, 0, TEST_BATCH, n, tokens_a, tokens_b, feature, target),
          "ss_task_batch");
    const ss_model_batch b = {TEST_BATCH, n, tokens_a, tokens_b, feature, target};
    ss_model_outputs out = {0};
    check(ss_model_forward(&cfg, impl, params, &b, work, work_bytes, &out), "ss_model_forward");
    printf("test n = %zu: accuracy %.4f (%d examples)\n", n, out.accuracy, TEST_BATCH);
  }

  free(norm_params), free(hp), free(params), free(grads), free(state), free(scalars), free(work);
  free(tokens_a), free(tokens_b), free(feature), free(target);
  return 0;
}
