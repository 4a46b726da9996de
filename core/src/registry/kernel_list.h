/* THE kernel list: one line per registered kernel, in registry order.
   Each kernel's descriptor (ss_kernel_<name>) lives in its own C file, next
   to the code and the formula. This file is included with SS_KERNEL defined
   by its user (kernels.h declares, registry.c lists); adding a kernel is one
   C file and one line here. */

/* normalizers (core/src/softmax) */
SS_KERNEL(softmax)
SS_KERNEL(online_softmax)
SS_KERNEL(two_pass_softmax)
SS_KERNEL(log_softmax)
SS_KERNEL(softmax_temperature)

/* normalizers: sparse (core/src/sparse) */
SS_KERNEL(sparsemax)
SS_KERNEL(entmax15)
SS_KERNEL(topk_softmax)

/* normalizers: entmax (core/src/entmax) */
SS_KERNEL(entmax_bisect)
SS_KERNEL(entmax_halley)
SS_KERNEL(asentmax)

/* normalizers: softmax variants (core/src/variants) */
SS_KERNEL(softpick)
SS_KERNEL(relu_attention)
SS_KERNEL(stablemax)
SS_KERNEL(multimax)
SS_KERNEL(sa_softmax)
SS_KERNEL(boltzmann)
SS_KERNEL(vq_softmax)
SS_KERNEL(masked_softmax)
SS_KERNEL(noisy_softmax)

/* normalizers: length-aware and adaptive (core/src/adaptive) */
SS_KERNEL(adaptive_temperature)
SS_KERNEL(ssmax)
SS_KERNEL(softplus_l1)

/* samplers (core/src/sample) */
SS_KERNEL(temperature)
SS_KERNEL(categorical)
SS_KERNEL(top_k)
SS_KERNEL(top_p)
SS_KERNEL(min_p)
SS_KERNEL(typical)
SS_KERNEL(gumbel_max)
SS_KERNEL(gumbel_softmax)
SS_KERNEL(gumbel_softmax_hard)
SS_KERNEL(reinmax)
SS_KERNEL(gumbel_sigmoid)
SS_KERNEL(dirichlet)
SS_KERNEL(dare)

/* quantizers (core/src/quant) */
SS_KERNEL(uniform)
SS_KERNEL(fp8_e4m3)
SS_KERNEL(fp8_e5m2)
SS_KERNEL(pow2)
SS_KERNEL(log_quant)
SS_KERNEL(sign_mean)
SS_KERNEL(vq)
SS_KERNEL(adaround)

/* optimizers (core/src/optim) */
SS_KERNEL(sgd)
SS_KERNEL(momentum)
SS_KERNEL(nesterov)
SS_KERNEL(adagrad)
SS_KERNEL(adagrad_norm)
SS_KERNEL(rmsprop)
SS_KERNEL(adam)
SS_KERNEL(adamw)
SS_KERNEL(amsgrad)
SS_KERNEL(adabound)
SS_KERNEL(amsbound)
SS_KERNEL(adabelief)
SS_KERNEL(lion)
SS_KERNEL(sage)
SS_KERNEL(adam_atan2)
SS_KERNEL(lars)
SS_KERNEL(lamb)
SS_KERNEL(sam)
SS_KERNEL(perpgrad)
SS_KERNEL(ema)
SS_KERNEL(ogda)

/* attention (core/src/attention) */
SS_KERNEL(sdpa)
SS_KERNEL(cosformer)
SS_KERNEL(galerkin)
SS_KERNEL(performer)
SS_KERNEL(trig)
SS_KERNEL(hrf)

/* losses (core/src/loss) */
SS_KERNEL(cross_entropy)
SS_KERNEL(sparsemax_loss)
SS_KERNEL(entmax15_loss)
SS_KERNEL(entmax_bisect_loss)

/* measures (core/src/measure) */
SS_KERNEL(sum)
SS_KERNEL(entropy)
SS_KERNEL(renyi_entropy)
SS_KERNEL(tsallis_entropy)
SS_KERNEL(zero_fraction)
SS_KERNEL(support)
SS_KERNEL(max_prob)
SS_KERNEL(effective_count)
SS_KERNEL(kl_divergence)
SS_KERNEL(hellinger)
SS_KERNEL(collapse)
SS_KERNEL(kurtosis)
SS_KERNEL(max_median_ratio)
SS_KERNEL(logsumexp) /* core/src/softmax/logsumexp.c */
