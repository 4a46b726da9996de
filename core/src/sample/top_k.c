/*
 * top_k -- sample from the k most probable tokens (Fan, Lewis & Dauphin
 * 2018, "Hierarchical Neural Story Generation"), after temperature:
 *
 *   e_i = exp(x_i / T - max), v = the k-th largest e (duplicates counted),
 *   kept = {i : e_i >= v},  p_i = e_i / sum_kept e  on kept, 0 elsewhere.
 *
 * Ties at the k-th value are kept (so |kept| > k only through ties), as in
 * Hugging Face's TopKLogitsWarper, which removes `scores < topk(...)[-1]`;
 * the order of tied tokens never decides. k > n is SS_ERR_LENGTH (HF clamps).
 * The threshold is found without a sort: for k <= 256 by one pass with a
 * heap of k floats (topk_select.c; SIMD compares four entries at once with
 * the heap's root), past that by expected-O(n) quickselect (common/select.c)
 * on e in probs, which the skeleton then recomputes; the filter skeleton
 * (filter.h) masks, renormalizes and draws.
 */
#include "common/impl_pair.h"
#include "common/select.h"
#include "registry/kernels.h"
#include "sample/filter.h"
#include "sample/sample_internal.h"

static const ss_param_info top_k_params[] = {
    {.name = "k", .type = SS_PARAM_INT, .n_bound = SS_N_BOUND_LE, .min = 1.0, .max = (double)SS_MAX_N,
     .def = 50.0, .ui_min = 1.0, .ui_max = 200.0, .log_scale = true,
     .help = "keep the k most probable tokens and every token tied with the k-th"},
    SS_SAMPLER_TEMPERATURE_PARAM,
    SS_SAMPLER_SEED_PARAM,
    SS_SAMPLER_DRAWS_PARAM,
};

/* Up to TOPK_HEAP entries the threshold comes from one pass with a heap of
   k floats (topk_select.c: the decoding defaults, k = 40 or 50, over a
   vocabulary); past it from a quickselect on e (permuted, so recomputed). */
#define TOPK_HEAP 256

static float top_k_threshold(float *e, size_t n, const ss_filter_ctx *c, bool *permuted) {
  const size_t k = (size_t)c->params[0];
  if (k >= n) return 0.0f;
  if (k <= TOPK_HEAP) {
    float heap[TOPK_HEAP];
    return c->ops->topk_kth(e, n, k, heap);
  }
  *permuted = true;
  return ss_select_kth_largest(e, n, k, NULL);
}

SS_ALWAYS_INLINE ss_status top_k_run(ss_impl impl, const float *x, size_t n, const double *params,
                           float *probs, uint32_t *indices, float *samples) {
  (void)samples;
  if (params[0] > (double)n) return SS_ERR_LENGTH;
  return ss_filter_sample(&ss_kernel_top_k, SS_DET_OPS(impl), x, n, params, top_k_threshold, probs, indices);
}

SS_SAMPLE_IMPLS(top_k, top_k_run)

const ss_kernel_info ss_kernel_top_k = {
    .name = "top_k",
    .family = SS_FAMILY_SAMPLER,
    .summary = "sample from the k most probable tokens (ties at the k-th kept)",
    .formula = "kept = {i : p_i >= k-th largest p}, p = softmax(x/T); q = p on kept / sum_kept p",
    .paper = "Fan, Lewis & Dauphin 2018, Hierarchical Neural Story Generation",
    .nparams = sizeof top_k_params / sizeof top_k_params[0],
    .params = top_k_params,
    .input = SS_INPUT_LOGITS,
    .draws = SS_DRAW_INDEX,
    .sample = SS_IMPLS(top_k),
    .role = SS_ROLE_DECODE_STAGE,
    .stage = 2,
    .stage_param = "k",
};
