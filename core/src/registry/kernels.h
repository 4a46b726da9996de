/* Every kernel's descriptor. Each lives in its kernel's own C file, next to
   the code and the formula; registry.c lists them. Adding a kernel = one C
   file + one line here + one line in registry.c. */
#ifndef SS_REGISTRY_KERNELS_H
#define SS_REGISTRY_KERNELS_H

#include "softscope.h"

/* normalizers (core/src/softmax) */
extern const ss_kernel_info ss_kernel_softmax;
extern const ss_kernel_info ss_kernel_online_softmax;
extern const ss_kernel_info ss_kernel_two_pass_softmax;
extern const ss_kernel_info ss_kernel_log_softmax;
extern const ss_kernel_info ss_kernel_softmax_temperature;

/* normalizers: sparse (core/src/sparse) */
extern const ss_kernel_info ss_kernel_sparsemax;
extern const ss_kernel_info ss_kernel_entmax15;
extern const ss_kernel_info ss_kernel_topk_softmax;

/* normalizers: entmax (core/src/entmax) */
extern const ss_kernel_info ss_kernel_entmax_bisect;
extern const ss_kernel_info ss_kernel_entmax_halley;
extern const ss_kernel_info ss_kernel_asentmax;

/* normalizers: softmax variants (core/src/variants) */
extern const ss_kernel_info ss_kernel_softpick;
extern const ss_kernel_info ss_kernel_stablemax;
extern const ss_kernel_info ss_kernel_multimax;
extern const ss_kernel_info ss_kernel_sa_softmax;
extern const ss_kernel_info ss_kernel_boltzmann;
extern const ss_kernel_info ss_kernel_vq_softmax;
extern const ss_kernel_info ss_kernel_masked_softmax;
extern const ss_kernel_info ss_kernel_noisy_softmax;

/* normalizers: length-aware and adaptive (core/src/adaptive) */
extern const ss_kernel_info ss_kernel_adaptive_temperature;
extern const ss_kernel_info ss_kernel_ssmax;
extern const ss_kernel_info ss_kernel_softplus_l1;

/* samplers (core/src/sample) */
extern const ss_kernel_info ss_kernel_temperature;
extern const ss_kernel_info ss_kernel_categorical;
extern const ss_kernel_info ss_kernel_top_k;
extern const ss_kernel_info ss_kernel_top_p;
extern const ss_kernel_info ss_kernel_min_p;
extern const ss_kernel_info ss_kernel_typical;
extern const ss_kernel_info ss_kernel_gumbel_max;
extern const ss_kernel_info ss_kernel_gumbel_softmax;
extern const ss_kernel_info ss_kernel_gumbel_softmax_hard;
extern const ss_kernel_info ss_kernel_reinmax;
extern const ss_kernel_info ss_kernel_gumbel_sigmoid;
extern const ss_kernel_info ss_kernel_dirichlet;
extern const ss_kernel_info ss_kernel_dare;
/* quantizers (core/src/quant) */
extern const ss_kernel_info ss_kernel_uniform;
extern const ss_kernel_info ss_kernel_fp8_e4m3;
extern const ss_kernel_info ss_kernel_fp8_e5m2;
extern const ss_kernel_info ss_kernel_pow2;
extern const ss_kernel_info ss_kernel_log_quant;
extern const ss_kernel_info ss_kernel_sign_mean;
extern const ss_kernel_info ss_kernel_vq;

/* optimizers (core/src/optim) */
extern const ss_kernel_info ss_kernel_sgd;
extern const ss_kernel_info ss_kernel_momentum;
extern const ss_kernel_info ss_kernel_nesterov;
extern const ss_kernel_info ss_kernel_adagrad;
extern const ss_kernel_info ss_kernel_adagrad_norm;
extern const ss_kernel_info ss_kernel_rmsprop;
extern const ss_kernel_info ss_kernel_adam;
extern const ss_kernel_info ss_kernel_adamw;
extern const ss_kernel_info ss_kernel_amsgrad;
extern const ss_kernel_info ss_kernel_adabound;
extern const ss_kernel_info ss_kernel_amsbound;
extern const ss_kernel_info ss_kernel_adabelief;
extern const ss_kernel_info ss_kernel_lion;
extern const ss_kernel_info ss_kernel_sage;
extern const ss_kernel_info ss_kernel_adam_atan2;
extern const ss_kernel_info ss_kernel_lars;
extern const ss_kernel_info ss_kernel_lamb;
extern const ss_kernel_info ss_kernel_sam;
extern const ss_kernel_info ss_kernel_perpgrad;
extern const ss_kernel_info ss_kernel_ema;
extern const ss_kernel_info ss_kernel_ogda;

/* attention (core/src/attention) */
extern const ss_kernel_info ss_kernel_sdpa;
extern const ss_kernel_info ss_kernel_cosformer;
extern const ss_kernel_info ss_kernel_galerkin;
extern const ss_kernel_info ss_kernel_performer;

/* losses (core/src/loss) */
extern const ss_kernel_info ss_kernel_cross_entropy;
extern const ss_kernel_info ss_kernel_sparsemax_loss;
extern const ss_kernel_info ss_kernel_entmax15_loss;
extern const ss_kernel_info ss_kernel_entmax_bisect_loss;

/* measures (core/src/measure) */
extern const ss_kernel_info ss_kernel_sum;
extern const ss_kernel_info ss_kernel_entropy;
extern const ss_kernel_info ss_kernel_renyi_entropy;
extern const ss_kernel_info ss_kernel_tsallis_entropy;
extern const ss_kernel_info ss_kernel_zero_fraction;
extern const ss_kernel_info ss_kernel_support;
extern const ss_kernel_info ss_kernel_max_prob;
extern const ss_kernel_info ss_kernel_effective_count;
extern const ss_kernel_info ss_kernel_kl_divergence;
extern const ss_kernel_info ss_kernel_hellinger;
extern const ss_kernel_info ss_kernel_collapse;
extern const ss_kernel_info ss_kernel_logsumexp; /* core/src/softmax/logsumexp.c */

#endif
