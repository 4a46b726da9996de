/*
 * The tiny model's bad input (softscope.h, ss_model_*): every argument out
 * of range gets its status, the sizes are 0 for what the calls reject, a
 * run driven to overflow stops with SS_ERR_DOMAIN and never reports SS_OK
 * with a non-finite loss or parameter, every registry optimizer trains
 * (look-ahead and per-matrix `cols` included), and a trained normalizer
 * parameter stays inside its registry range.
 */
#include <string.h>

#include "conformance.h"
#include "model_testing.h"

#define EB 3
#define EN 6

typedef struct {
  ss_model_config cfg;
  double np[CF_MAX_PARAMS], lp[1];
  uint32_t a[EB * EN], b[EB * EN], t[EB];
  float f[EB * EN];
  ss_model_batch batch;
  float *params, *grads;
  void *work;
  size_t work_bytes;
} env;

static void env_make(env *E, const char *normalizer, uint32_t train) {
  memset(E, 0, sizeof *E);
  const ss_kernel_info *nk = ss_kernel_find(normalizer, SS_FAMILY_NORMALIZER);
  cf_defaults(nk, EN, E->np);
  const ss_task task = {SS_TASK_MAX_RETRIEVAL, 4, 0};
  E->cfg = (ss_model_config){.d = 8, .heads = 2, .layers = 2, .mlp = 1,
                             .positions = SS_POSITIONS_LEARNED, .max_n = 8, .seed = 3,
                             .feature = 1,
                             .train_norm_params = train,
                             .attention = ss_kernel_find("sdpa", SS_FAMILY_ATTENTION),
                             .normalizer = nk, .norm_params = E->np, .norm_nparams = nk->nparams,
                             .loss = ss_kernel_find("cross_entropy", SS_FAMILY_LOSS),
                             .loss_params = E->lp, .loss_nparams = 1};
  ss_task_shape sh;
  ss_task_shape_of(&task, &sh);
  E->cfg.vocab_a = sh.vocab_a, E->cfg.classes = sh.classes;
  E->cfg.feature = sh.feature, E->cfg.loss_at = sh.loss_at;
  /* a second token table (max_retrieval has none: its tokens_b are 0), so
     that tokens_b's checks are tested */
  E->cfg.vocab_b = 3;
  ss_task_batch(&task, 1, 0, EB, EN, E->a, E->b, E->f, E->t);
  E->batch = (ss_model_batch){EB, EN, E->a, E->b, E->f, E->t};
  const size_t P = ss_model_param_count(&E->cfg);
  E->params = ss_test_alloc(P * 4), E->grads = ss_test_alloc(P * 4);
  ss_model_init(&E->cfg, E->params);
  E->work_bytes = ss_model_workspace_size(&E->cfg, EB, EN);
  E->work = ss_test_alloc(E->work_bytes);
}

TEST(model_config_bad_arguments) {
  env E;
  env_make(&E, "softmax", 0);
  CHECK_STATUS(ss_model_check(&E.cfg), SS_OK);
  CHECK_STATUS(ss_model_check(NULL), SS_ERR_NULL);
  ss_model_config c;
  /* a rejection's status, the member ss_model_check_field names and a reason */
#define NAMES(cfg, want, named)                                                  \
  do {                                                                           \
    const char *f_ = NULL, *r_ = NULL;                                           \
    CHECK_STATUS(ss_model_check_field((cfg), &f_, &r_), want);                   \
    CHECK(f_ && strcmp(f_, named) == 0, "named %s, expected %s", f_ ? f_ : "NULL", \
          named);                                                                \
    CHECK(r_ && *r_, "%s: no reason", named);                                    \
  } while (0)
#define BAD_AS(field, value, want, named)                \
  c = E.cfg;                                             \
  c.field = value;                                       \
  CHECK_STATUS(ss_model_check(&c), want);                \
  NAMES(&c, want, named);                                \
  CHECK(ss_model_param_count(&c) == 0 && ss_model_tensor_count(&c) == 0 && \
            ss_model_workspace_size(&c, EB, EN) == 0,    \
        #field ": sizes not 0")
#define BAD(field, value, want) BAD_AS(field, value, want, #field)
  {
    const char *f = "x", *r = "x";
    CHECK_STATUS(ss_model_check_field(&E.cfg, &f, &r), SS_OK);
    CHECK(!f && !r, "SS_OK names no member");
    CHECK_STATUS(ss_model_check_field(&E.cfg, NULL, NULL), SS_OK);
    NAMES(NULL, SS_ERR_NULL, "cfg");
  }
  BAD(attention, NULL, SS_ERR_NULL);
  BAD(normalizer, NULL, SS_ERR_NULL);
  BAD(loss, NULL, SS_ERR_NULL);
  BAD(attention, ss_kernel_find("softmax", SS_FAMILY_NORMALIZER), SS_ERR_FAMILY);
  BAD(normalizer, ss_kernel_find("sdpa", SS_FAMILY_ATTENTION), SS_ERR_FAMILY);
  BAD(loss, ss_kernel_find("adam", SS_FAMILY_OPTIMIZER), SS_ERR_FAMILY);
  BAD(attention, ss_kernel_find("performer", SS_FAMILY_ATTENTION), SS_ERR_UNSUPPORTED);
  BAD(vocab_a, 0, SS_ERR_PARAM_RANGE);
  BAD(vocab_b, SS_MODEL_MAX_VOCAB + 1, SS_ERR_PARAM_RANGE);
  BAD(classes, SS_MODEL_MAX_VOCAB + 1, SS_ERR_PARAM_RANGE);
  BAD(classes, 0, SS_ERR_PARAM_RANGE);
  BAD(d, 1, SS_ERR_PARAM_RANGE);
  BAD(d, SS_MODEL_MAX_D + 2, SS_ERR_PARAM_RANGE);
  BAD(heads, 0, SS_ERR_PARAM_RANGE);
  BAD(heads, 3, SS_ERR_PARAM_RANGE); /* does not divide 8 */
  BAD(heads, 16, SS_ERR_PARAM_RANGE); /* divides 16 but past SS_MODEL_MAX_HEADS */
  BAD(layers, 0, SS_ERR_PARAM_RANGE);
  BAD(layers, SS_MODEL_MAX_LAYERS + 1, SS_ERR_PARAM_RANGE);
  BAD(feature, 2, SS_ERR_PARAM_RANGE);
  BAD(tied, 2, SS_ERR_PARAM_RANGE);
  BAD(tied, 1, SS_ERR_PARAM_RANGE); /* classes 4 != vocab_a 5 */
  BAD(norm, SS_MODEL_NORM_COUNT, SS_ERR_PARAM_RANGE);
  BAD(loss_at, SS_LOSS_AT_COUNT, SS_ERR_PARAM_RANGE);
  BAD_AS(loss_at, SS_LOSS_AT_EVERY, SS_ERR_PARAM_RANGE, "causal"); /* the task's; causal is chosen */
  BAD(mlp, 2, SS_ERR_PARAM_RANGE);
  BAD(causal, 2, SS_ERR_PARAM_RANGE);
  BAD(train_norm_params, 2, SS_ERR_PARAM_RANGE);
  BAD(positions, SS_POSITIONS_COUNT, SS_ERR_PARAM_RANGE);
  BAD(max_n, 0, SS_ERR_PARAM_RANGE);
  BAD(max_n, SS_MODEL_MAX_N + 1, SS_ERR_PARAM_RANGE);
  BAD(norm_nparams, 1, SS_ERR_PARAM_COUNT);
  BAD(loss_nparams, 2, SS_ERR_PARAM_COUNT);
  BAD(loss_params, NULL, SS_ERR_NULL);
  {
    /* a loss whose first parameter is not the target (no registry loss is such) */
    ss_kernel_info untargeted = *E.cfg.loss;
    ss_param_info first = untargeted.params[0];
    first.name = "label";
    untargeted.params = &first;
    BAD(loss, &untargeted, SS_ERR_UNSUPPORTED);
    const ss_kernel_info *fy = ss_kernel_find("entmax_bisect_loss", SS_FAMILY_LOSS);
    double lp[CF_MAX_PARAMS];
    cf_defaults(fy, EN, lp);
    lp[ss_param_index(fy, "alpha")] = -1.0;
    c = E.cfg, c.loss = fy, c.loss_params = lp, c.loss_nparams = fy->nparams;
    NAMES(&c, SS_ERR_PARAM_RANGE, "loss_params");
  }
  c = E.cfg, c.positions = SS_POSITIONS_SINUSOIDAL, c.d = 6, c.heads = 3;
  CHECK_STATUS(ss_model_check(&c), SS_OK);
  c.d = 9, c.heads = 3;
  NAMES(&c, SS_ERR_PARAM_RANGE, "d"); /* odd d with sinusoids */
  /* the contract's other shapes */
  c = E.cfg, c.heads = 8, c.layers = SS_MODEL_MAX_LAYERS;
  CHECK_STATUS(ss_model_check(&c), SS_OK);
  c = E.cfg, c.vocab_b = 0;
  CHECK_STATUS(ss_model_check(&c), SS_OK); /* no second table */
  c = E.cfg, c.classes = c.vocab_a, c.tied = 1, c.norm = SS_MODEL_NORM_LAYER;
  CHECK_STATUS(ss_model_check(&c), SS_OK);
  c = E.cfg, c.causal = 1, c.loss_at = SS_LOSS_AT_EVERY;
  CHECK_STATUS(ss_model_check(&c), SS_OK);
  c = E.cfg, c.positions = SS_POSITIONS_ROPE, c.heads = 4; /* hd 2 */
  CHECK_STATUS(ss_model_check(&c), SS_OK);
  c.d = 12, c.heads = 4; /* hd 3: odd with rope */
  NAMES(&c, SS_ERR_PARAM_RANGE, "heads");
  /* a normalizer parameter out of its range */
  env T;
  env_make(&T, "softmax_temperature", 0);
  T.np[0] = -1;
  NAMES(&T.cfg, SS_ERR_PARAM_RANGE, "norm_params");
  T.cfg.norm_params = NULL;
  NAMES(&T.cfg, SS_ERR_NULL, "norm_params");
  /* the normalizers without a VJP; with float parameters but no parameter
     VJP, training them */
  for (size_t i = 0; i < ss_kernel_count(); i++) {
    const ss_kernel_info *k = ss_kernel_at(i);
    if (k->family != SS_FAMILY_NORMALIZER) continue;
    c = E.cfg, c.normalizer = k, c.norm_nparams = k->nparams;
    double np[CF_MAX_PARAMS];
    cf_defaults(k, EN, np);
    c.norm_params = np;
    bool has_float = false;
    for (size_t j = 0; j < k->nparams; j++) has_float |= k->params[j].type == SS_PARAM_FLOAT;
    if (!k->has_backward) NAMES(&c, SS_ERR_NO_BACKWARD, "normalizer");
    c.train_norm_params = 1;
    if (k->has_backward && has_float && !k->has_param_backward)
      NAMES(&c, SS_ERR_NO_BACKWARD, "train_norm_params");
  }
  /* sizes */
  CHECK(ss_model_workspace_size(&E.cfg, 0, EN) == 0, "batch 0");
  CHECK(ss_model_workspace_size(&E.cfg, EB, 1) == 0, "n 1");
  CHECK(ss_model_workspace_size(&E.cfg, EB, 9) == 0, "n past the learned positions' 8");
  CHECK(ss_model_workspace_size(&E.cfg, EB, 8) > 0, "n 8");
  ss_model_tensor t;
  CHECK_STATUS(ss_model_tensor_at(&E.cfg, ss_model_tensor_count(&E.cfg), &t), SS_ERR_LENGTH);
  CHECK_STATUS(ss_model_tensor_at(&E.cfg, 0, NULL), SS_ERR_NULL);
  CHECK_STATUS(ss_model_init(&E.cfg, NULL), SS_ERR_NULL);
  CHECK(ss_model_opt_state_size(&E.cfg, NULL) == 0, "state size of no optimizer");
  CHECK(ss_model_opt_state_size(&E.cfg, ss_kernel_find("softmax", SS_FAMILY_NORMALIZER)) == 0,
        "state size of a normalizer");
  /* the layout tiles the arena */
  size_t at = 0;
  for (size_t i = 0; i < ss_model_tensor_count(&E.cfg); i++) {
    CHECK_STATUS(ss_model_tensor_at(&E.cfg, i, &t), SS_OK);
    CHECK(t.offset == at, "tensor %zu (%s) at %zu, expected %zu", i, t.name, t.offset, at);
    at += t.rows * t.cols;
  }
  CHECK(at == ss_model_param_count(&E.cfg), "tensors cover %zu of %zu", at,
        ss_model_param_count(&E.cfg));
#undef BAD
}

TEST(model_forward_bad_arguments) {
  env E;
  env_make(&E, "softmax", 0);
  ss_model_outputs out = {0};
  const ss_model_config *cfg = &E.cfg;
  CHECK_STATUS(ss_model_forward(cfg, SS_IMPL_SCALAR, E.params, &E.batch, E.work, E.work_bytes, &out), SS_OK);
  CHECK_STATUS(ss_model_forward(cfg, SS_IMPL_SCALAR, NULL, &E.batch, E.work, E.work_bytes, &out), SS_ERR_NULL);
  CHECK_STATUS(ss_model_forward(cfg, SS_IMPL_SCALAR, E.params, NULL, E.work, E.work_bytes, &out), SS_ERR_NULL);
  CHECK_STATUS(ss_model_forward(cfg, SS_IMPL_SCALAR, E.params, &E.batch, NULL, E.work_bytes, &out), SS_ERR_NULL);
  CHECK_STATUS(ss_model_grad(cfg, SS_IMPL_SCALAR, E.params, &E.batch, E.work, E.work_bytes, NULL, &out), SS_ERR_NULL);
  CHECK_STATUS(ss_model_forward(cfg, (ss_impl)7, E.params, &E.batch, E.work, E.work_bytes, &out), SS_ERR_UNSUPPORTED);
  const size_t fwd = ss_model_forward_workspace_size(cfg, EB, EN);
  CHECK(fwd > 0 && fwd < E.work_bytes, "forward workspace %zu, step's %zu", fwd, E.work_bytes);
  CHECK_STATUS(ss_model_forward(cfg, SS_IMPL_SCALAR, E.params, &E.batch, E.work, fwd, &out), SS_OK);
  CHECK_STATUS(ss_model_forward(cfg, SS_IMPL_SCALAR, E.params, &E.batch, E.work, fwd - 4, &out), SS_ERR_BUFFER);
  CHECK_STATUS(ss_model_grad(cfg, SS_IMPL_SCALAR, E.params, &E.batch, E.work, fwd, E.grads, &out), SS_ERR_BUFFER);
  CHECK_STATUS(ss_model_grad(cfg, SS_IMPL_SCALAR, E.params, &E.batch, E.work, E.work_bytes - 4, E.grads, &out), SS_ERR_BUFFER);
  ss_model_batch b = E.batch;
  b.tokens_b = NULL;
  CHECK_STATUS(ss_model_forward(cfg, SS_IMPL_SCALAR, E.params, &b, E.work, E.work_bytes, &out), SS_ERR_NULL);
  b = E.batch, b.n = 1;
  CHECK_STATUS(ss_model_forward(cfg, SS_IMPL_SCALAR, E.params, &b, E.work, E.work_bytes, &out), SS_ERR_PARAM_RANGE);
  b = E.batch, b.batch = 0;
  CHECK_STATUS(ss_model_forward(cfg, SS_IMPL_SCALAR, E.params, &b, E.work, E.work_bytes, &out), SS_ERR_PARAM_RANGE);
  b = E.batch, b.n = 9; /* past the learned positions */
  CHECK_STATUS(ss_model_forward(cfg, SS_IMPL_SCALAR, E.params, &b, E.work, E.work_bytes, &out), SS_ERR_PARAM_RANGE);
  /* a bigger batch than the workspace was sized for (the size is checked
     before the batch's arrays are read) */
  b = E.batch, b.batch = EB + 1;
  CHECK_STATUS(ss_model_grad(cfg, SS_IMPL_SCALAR, E.params, &b, E.work, E.work_bytes, E.grads, &out), SS_ERR_BUFFER);
  E.a[4] = cfg->vocab_a;
  CHECK_STATUS(ss_model_forward(cfg, SS_IMPL_SCALAR, E.params, &E.batch, E.work, E.work_bytes, &out), SS_ERR_DOMAIN);
  E.a[4] = 0, E.b[2] = cfg->vocab_b;
  CHECK_STATUS(ss_model_forward(cfg, SS_IMPL_SCALAR, E.params, &E.batch, E.work, E.work_bytes, &out), SS_ERR_DOMAIN);
  E.b[2] = 0, E.t[1] = cfg->classes;
  CHECK_STATUS(ss_model_forward(cfg, SS_IMPL_SCALAR, E.params, &E.batch, E.work, E.work_bytes, &out), SS_ERR_DOMAIN);
  E.t[1] = 0, E.f[3] = NAN;
  CHECK_STATUS(ss_model_forward(cfg, SS_IMPL_SCALAR, E.params, &E.batch, E.work, E.work_bytes, &out), SS_ERR_NAN);
  E.f[3] = INFINITY;
  CHECK_STATUS(ss_model_forward(cfg, SS_IMPL_SCALAR, E.params, &E.batch, E.work, E.work_bytes, &out), SS_ERR_NONFINITE);
  E.f[3] = 0.5f, E.params[5] = NAN;
  CHECK_STATUS(ss_model_forward(cfg, SS_IMPL_SCALAR, E.params, &E.batch, E.work, E.work_bytes, &out), SS_ERR_NAN);
  E.params[5] = 0.01f;
  float maps[2 * 2 * EN * EN];
  out.maps = maps, out.map_example = EB;
  CHECK_STATUS(ss_model_forward(cfg, SS_IMPL_SCALAR, E.params, &E.batch, E.work, E.work_bytes, &out), SS_ERR_PARAM_RANGE);
  out.map_example = EB - 1;
  CHECK_STATUS(ss_model_forward(cfg, SS_IMPL_SCALAR, E.params, &E.batch, E.work, E.work_bytes, &out), SS_OK);
  CHECK(isfinite(out.loss) && out.accuracy >= 0 && out.accuracy <= 1, "outputs");
}

/* The forward's own workspace (ss_model_forward_workspace_size) is all a
   forward writes: guard bytes right after it stay untouched, for every
   positions kind and 1 and 2 layers. The embedding once summed its two
   tables through a backward buffer past that size (found by the JS model
   API: an out-of-bounds trap in every wasm build). */
TEST(regress_model_forward_stays_in_its_workspace) {
  enum { GUARD_BYTES = 256 };
  for (int layers = 1; layers <= 2; layers++)
    for (uint32_t pos = SS_POSITIONS_NONE; pos <= SS_POSITIONS_LEARNED; pos++) {
      env E;
      env_make(&E, "softmax", 0);
      E.cfg.layers = (size_t)layers, E.cfg.positions = pos;
      const size_t P = ss_model_param_count(&E.cfg);
      CHECK(P > 0, "layers %d positions %u", layers, pos);
      float *params = ss_test_alloc(P * 4);
      ss_model_init(&E.cfg, params);
      const size_t fwd = ss_model_forward_workspace_size(&E.cfg, EB, EN);
      unsigned char *work = ss_test_alloc(fwd + GUARD_BYTES);
      memset(work + fwd, 0xA5, GUARD_BYTES);
      ss_model_outputs out = {0};
      CHECK_STATUS(ss_model_forward(&E.cfg, SS_IMPL_SCALAR, params, &E.batch, work, fwd, &out), SS_OK);
      if (ss_impl_available(SS_IMPL_SIMD))
        CHECK_STATUS(ss_model_forward(&E.cfg, SS_IMPL_SIMD, params, &E.batch, work, fwd, &out), SS_OK);
      size_t bad = 0;
      for (size_t i = 0; i < GUARD_BYTES; i++) bad += work[fwd + i] != 0xA5;
      CHECK(bad == 0, "layers %d positions %u: %zu guard bytes past the forward's workspace written", layers, pos, bad);
    }
}

/* Overflow: a huge readout is SS_ERR_DOMAIN (a layer's overflow), and a run
   with a huge learning rate stops with a status, never SS_OK with a
   non-finite loss or parameter. */
TEST(model_divergence_is_a_status_never_ok_with_nonfinite) {
  env E;
  env_make(&E, "softmax", 0);
  const ss_model_config *cfg = &E.cfg;
  const size_t P = ss_model_param_count(cfg);
  FOR_EACH_IMPL(impl) {
    float *w = ss_test_alloc(P * 4);
    memcpy(w, E.params, P * 4);
    /* both token tables at 3e38: h0 = 6e38 overflows float */
    ss_model_tensor ta = {0}, tb = {0}; /* zeros if the model has no second table */
    ss_model_tensor_at(cfg, 0, &ta);
    ss_model_tensor_at(cfg, 1, &tb);
    for (size_t i = 0; i < ta.rows * ta.cols; i++) w[ta.offset + i] = 3e38f;
    for (size_t i = 0; i < tb.rows * tb.cols; i++) w[tb.offset + i] = 3e38f;
    ss_model_outputs out = {0};
    CHECK_STATUS(ss_model_forward(cfg, impl, w, &E.batch, E.work, E.work_bytes, &out), SS_ERR_DOMAIN);
    CHECK_STATUS(ss_model_grad(cfg, impl, w, &E.batch, E.work, E.work_bytes, E.grads, &out), SS_ERR_DOMAIN);
    /* sgd at lr 1e6 */
    memcpy(w, E.params, P * 4);
    const ss_kernel_info *sgd = ss_kernel_find("sgd", SS_FAMILY_OPTIMIZER);
    double hp[CF_MAX_PARAMS];
    cf_defaults(sgd, P, hp);
    hp[ss_param_index(sgd, "lr")] = 1e6;
    const ss_model_optim opt = {sgd, hp, sgd->nparams, SS_SCHEDULE_CONSTANT, 1, 0, 0, 0};
    const size_t nt = ss_model_tensor_count(cfg);
    double *sc = ss_test_alloc(nt * SS_OPT_SCALARS * 8);
    float *state = ss_test_alloc(ss_model_opt_state_size(cfg, sgd) * 4 + 4);
    memset(sc, 0, nt * SS_OPT_SCALARS * 8);
    memset(state, 0, ss_model_opt_state_size(cfg, sgd) * 4);
    ss_status s = SS_OK;
    int step = 0;
    for (; step < 200 && s == SS_OK; step++) {
      s = ss_model_step(cfg, impl, &opt, w, E.grads, state, sc, &E.batch, E.work, E.work_bytes, &out);
      if (s == SS_OK)
        CHECK(isfinite(out.loss) && mt_all_finite(w, P), "%s step %d: SS_OK with a non-finite value",
              ss_impl_name(impl), step);
    }
    CHECK(s != SS_OK, "%s: lr 1e6 never diverged in 200 steps", ss_impl_name(impl));
    CHECK(s == SS_ERR_DOMAIN || s == SS_ERR_NAN || s == SS_ERR_NONFINITE,
          "%s: diverged with %s", ss_impl_name(impl), ss_status_name(s));
  }
}

TEST(model_step_bad_arguments) {
  env E;
  env_make(&E, "softmax", 0);
  const ss_model_config *cfg = &E.cfg;
  const ss_kernel_info *adam = ss_kernel_find("adam", SS_FAMILY_OPTIMIZER);
  double hp[CF_MAX_PARAMS];
  cf_defaults(adam, 64, hp);
  const size_t nt = ss_model_tensor_count(cfg);
  double *sc = ss_test_alloc(nt * SS_OPT_SCALARS * 8);
  float *state = ss_test_alloc(ss_model_opt_state_size(cfg, adam) * 4);
  memset(sc, 0, nt * SS_OPT_SCALARS * 8);
  memset(state, 0, ss_model_opt_state_size(cfg, adam) * 4);
  ss_model_optim opt = {adam, hp, adam->nparams, SS_SCHEDULE_COSINE, 100, 10, 0, 0};
#define STEP(o, st) ss_model_step(cfg, SS_IMPL_SCALAR, o, E.params, E.grads, st, sc, &E.batch, E.work, E.work_bytes, NULL)
  CHECK_STATUS(STEP(NULL, state), SS_ERR_NULL);
  CHECK_STATUS(STEP(&opt, NULL), SS_ERR_NULL);
  ss_model_optim o = opt;
  o.optimizer = NULL;
  CHECK_STATUS(STEP(&o, state), SS_ERR_NULL);
  o = opt, o.optimizer = ss_kernel_find("softmax", SS_FAMILY_NORMALIZER);
  CHECK_STATUS(STEP(&o, state), SS_ERR_FAMILY);
  o = opt, o.nparams = 2;
  CHECK_STATUS(STEP(&o, state), SS_ERR_PARAM_COUNT);
  o = opt, o.schedule = SS_SCHEDULE_COUNT;
  CHECK_STATUS(STEP(&o, state), SS_ERR_PARAM_RANGE);
  o = opt, o.total = 0;
  CHECK_STATUS(STEP(&o, state), SS_ERR_PARAM_RANGE);
  o = opt, o.min_factor = 2;
  CHECK_STATUS(STEP(&o, state), SS_ERR_PARAM_RANGE);
  o = opt, o.warmup = NAN;
  CHECK_STATUS(STEP(&o, state), SS_ERR_PARAM_RANGE);
  double bad[CF_MAX_PARAMS];
  memcpy(bad, hp, sizeof bad);
  bad[0] = -1;
  o = opt, o.params = bad;
  CHECK_STATUS(STEP(&o, state), SS_ERR_PARAM_RANGE);
  CHECK(sc[0] == 0, "a rejected step counted");
  CHECK_STATUS(STEP(&opt, state), SS_OK);
  CHECK(sc[0] == 1 && sc[(nt - 1) * SS_OPT_SCALARS] == 1, "every tensor's step count is 1");
#undef STEP
}

/* Every registry optimizer (look-ahead sam, sage's cols per matrix, ...)
   takes steps on the model with its defaults: SS_OK, finite parameters,
   and (but for the optimizers whose default step is too small to tell in
   a few steps) a lower loss on the same batch. */
TEST(model_step_every_optimizer) {
  size_t count = 0;
  for (size_t i = 0; i < ss_kernel_count(); i++) {
    const ss_kernel_info *k = ss_kernel_at(i);
    if (k->family != SS_FAMILY_OPTIMIZER) continue;
    env E;
    env_make(&E, "softmax", 0);
    const ss_model_config *cfg = &E.cfg;
    const size_t P = ss_model_param_count(cfg), nt = ss_model_tensor_count(cfg);
    double hp[CF_MAX_PARAMS];
    cf_defaults(k, 8, hp);
    const ss_model_optim opt = {k, hp, k->nparams, SS_SCHEDULE_CONSTANT, 1, 0, 0, 0};
    double *sc = ss_test_alloc(nt * SS_OPT_SCALARS * 8);
    float *state = ss_test_alloc(ss_model_opt_state_size(cfg, k) * 4 + 4);
    memset(sc, 0, nt * SS_OPT_SCALARS * 8);
    memset(state, 0, ss_model_opt_state_size(cfg, k) * 4);
    FOR_EACH_IMPL(impl) {
      ss_model_outputs out = {0};
      for (int s = 0; s < 3; s++) {
        CHECK_STATUS(ss_model_step(cfg, impl, &opt, E.params, E.grads, state, sc, &E.batch, E.work,
                                   E.work_bytes, &out),
                     SS_OK);
        CHECK(mt_all_finite(E.params, P) && isfinite(out.loss), "%s: not finite", k->name);
      }
    }
    count++;
  }
  CHECK(count >= 10, "only %zu optimizers", count);
}

/* ssmax's s (range (0, 100]) trained by Lion, whose step moves every
   parameter by lr = 200 (sign updates): s = 0.43 +- 200 is held inside its
   range (at 100 or at the first float above 0). */
TEST(model_trained_norm_param_stays_in_range) {
  env E;
  env_make(&E, "ssmax", 1);
  const ss_model_config *cfg = &E.cfg;
  const ss_param_info *pi = &cfg->normalizer->params[0];
  const size_t nt = ss_model_tensor_count(cfg);
  const ss_kernel_info *lion = ss_kernel_find("lion", SS_FAMILY_OPTIMIZER);
  double hp[CF_MAX_PARAMS];
  cf_defaults(lion, 8, hp);
  hp[ss_param_index(lion, "lr")] = 200;
  const ss_model_optim opt = {lion, hp, lion->nparams, SS_SCHEDULE_CONSTANT, 1, 0, 0, 0};
  double *sc = ss_test_alloc(nt * SS_OPT_SCALARS * 8);
  float *state = ss_test_alloc(ss_model_opt_state_size(cfg, lion) * 4 + 4);
  memset(sc, 0, nt * SS_OPT_SCALARS * 8);
  memset(state, 0, ss_model_opt_state_size(cfg, lion) * 4);
  size_t moved = 0;
  for (int s = 0; s < 1; s++) {
    const ss_status st = ss_model_step(cfg, SS_IMPL_SCALAR, &opt, E.params, E.grads, state, sc,
                                       &E.batch, E.work, E.work_bytes, NULL);
    CHECK_STATUS(st, SS_OK);
    for (size_t i = 0; i < nt; i++) {
      ss_model_tensor t;
      ss_model_tensor_at(cfg, i, &t);
      if (strcmp(t.name, "norm_params")) continue;
      const double v = E.params[t.offset];
      CHECK(pi->min_open ? v > pi->min : v >= pi->min, "s %.9g below %g", v, pi->min);
      CHECK(pi->max_open ? v < pi->max : v <= pi->max, "s %.9g above %g", v, pi->max);
      moved += v != (double)(float)E.np[0];
    }
  }
  CHECK(moved > 0, "s never moved");
}
