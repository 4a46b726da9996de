/*
 * Cross-build determinism of every registry sampler: for a fixed input and
 * seed, the FNV-1a hash of (probs, indices, samples) -- every bit of the
 * output -- must equal the value recorded here. The same table is checked by
 * the native build, the wasm scalar build and the wasm SIMD build (and each
 * of them for both impls where available), so passing in all three means
 * "the same seed gives bit-identical draws natively and in wasm, scalar and
 * SIMD". The recorded values come from this test itself (run natively once;
 * a missing kernel fails with the line to add): they pin agreement between
 * builds, not correctness, which the per-kernel tests check against
 * independent references.
 */
#include <string.h>

#include "harness.h"
#include "sample_testing.h"

typedef struct pinned {
  const char *name;
  uint64_t hash;
} pinned;

static const pinned PINNED[] = {
    {"temperature", 0x8D057D2085B05670ull},
    {"categorical", 0x99FA0994EDB5BFCFull},
    {"top_k", 0x09C521B65CC7FC25ull},
    {"top_p", 0x037804D0EB4007BEull},
    {"min_p", 0x037804D0EB4007BEull}, /* same kept set as top_p on this input */
    {"typical", 0x9E262267F8BD65D8ull},
    {"gumbel_max", 0xA9F82F3685A4161Eull},
    {"gumbel_softmax", 0xD66B7F437869E3FCull},
    {"gumbel_softmax_hard", 0x6EB99C800D84C0CFull},
    {"reinmax", 0x6EB99C800D84C0CFull}, /* the same one-hot forward as gumbel_softmax_hard */
    {"gumbel_sigmoid", 0xC0C826CA09C443E0ull},
    {"dirichlet", 0x7E65D93E7F4ECDF4ull},
    {"dare", 0xF8DAE3F13FB52A45ull},
};

static uint64_t fnv(uint64_t h, const void *p, size_t bytes) {
  const unsigned char *b = p;
  for (size_t i = 0; i < bytes; i++) h = (h ^ b[i]) * 0x100000001B3ull;
  return h;
}

enum { PN = 37, PD = 9 };

static uint64_t run_hash(const ss_kernel_info *k, ss_impl impl, ss_status *st) {
  float x[PN], probs[PN], samples[PN * PD];
  uint32_t idx[PD];
  ss_rng r = {2024};
  for (size_t i = 0; i < PN; i++) {
    const double u = ss_rng_unif(&r);
    x[i] = k->input == SS_INPUT_LOGITS ? (float)(6.0 * u - 3.0) : (float)(0.2 + 1.8 * u);
  }
  if (k->input == SS_INPUT_LOGITS) x[5] = -INFINITY;
  double params[32];
  for (size_t i = 0; i < k->nparams; i++) {
    const ss_param_info *p = &k->params[i];
    params[i] = p->def;
    if (p->n_bound == SS_N_BOUND_LE && params[i] > PN) params[i] = 7;
    if (!strcmp(p->name, "seed")) params[i] = 123;
    if (!strcmp(p->name, "draws")) params[i] = PD;
  }
  memset(probs, 0, sizeof probs);
  memset(samples, 0, sizeof samples);
  memset(idx, 0, sizeof idx);
  *st = ss_sample(k, impl, x, PN, params, k->nparams, probs, idx, samples);
  uint64_t h = 0xCBF29CE484222325ull;
  h = fnv(h, probs, sizeof probs);
  h = fnv(h, idx, sizeof idx);
  return fnv(h, samples, sizeof samples);
}

TEST(sampler_outputs_pinned_across_builds) {
  size_t checked = 0, missing = 0;
  for (size_t i = 0; i < ss_kernel_count(); i++) {
    const ss_kernel_info *k = ss_kernel_at(i);
    if (k->family != SS_FAMILY_SAMPLER) continue;
    const pinned *pin = NULL;
    for (size_t j = 0; j < sizeof PINNED / sizeof *PINNED; j++)
      if (!strcmp(PINNED[j].name, k->name)) pin = &PINNED[j];
    FOR_EACH_IMPL(impl) {
      if (!k->sample[impl]) continue;
      ss_status st;
      const uint64_t h = run_hash(k, impl, &st);
      CHECK_STATUS(st, SS_OK);
      if (!pin) { /* list every missing line, then fail */
        if (impl == SS_IMPL_SCALAR)
          fprintf(stderr, "    not pinned: add {\"%s\", 0x%016llXull},\n", k->name,
                  (unsigned long long)h);
        missing++;
        continue;
      }
      CHECK(h == pin->hash, "%s (%s): hash 0x%016llX, pinned 0x%016llX", k->name,
            ss_impl_name(impl), (unsigned long long)h, (unsigned long long)pin->hash);
      checked++;
    }
  }
  CHECK(missing == 0, "%zu sampler runs not pinned (lines above)", missing);
  CHECK(checked >= 2, "checked %zu sampler runs", checked);
}
