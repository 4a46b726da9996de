/* The registry's own invariants: names are unique within a family, decoding
   stages are numbered 1..N without gaps and name one of their parameters,
   attention kernels say which kind they are, and every status has a name. */
#include <string.h>

#include "harness.h"

TEST(registry_names_unique_per_family) {
  for (size_t i = 0; i < ss_kernel_count(); i++)
    for (size_t j = i + 1; j < ss_kernel_count(); j++) {
      const ss_kernel_info *a = ss_kernel_at(i), *b = ss_kernel_at(j);
      CHECK(a->family != b->family || strcmp(a->name, b->name) != 0, "%s registered twice", a->name);
    }
}

TEST(registry_decode_stages) {
  unsigned seen = 0, count = 0;
  for (size_t i = 0; i < ss_kernel_count(); i++) {
    const ss_kernel_info *k = ss_kernel_at(i);
    if (k->role != SS_ROLE_DECODE_STAGE) {
      CHECK(k->stage == 0 && k->stage_param == NULL, "%s: stage set without the role", k->name);
      continue;
    }
    CHECK(k->family == SS_FAMILY_SAMPLER, "%s: a decoding stage must be a sampler", k->name);
    CHECK(k->stage >= 1 && k->stage <= 32, "%s: stage %u", k->name, k->stage);
    CHECK(!(seen & (1u << k->stage)), "%s: stage %u taken twice", k->name, k->stage);
    seen |= 1u << k->stage;
    count++;
    bool found = false;
    for (size_t p = 0; p < k->nparams; p++) found |= strcmp(k->params[p].name, k->stage_param) == 0;
    CHECK(found, "%s: stage_param %s is not one of its parameters", k->name, k->stage_param);
  }
  CHECK(count >= 2, "only %u decoding stages", count);
  CHECK(seen == ((1u << (count + 1)) - 2), "stages are not 1..%u without gaps", count);
}

TEST(registry_attention_roles) {
  for (size_t i = 0; i < ss_kernel_count(); i++) {
    const ss_kernel_info *k = ss_kernel_at(i);
    const bool att = k->role == SS_ROLE_EXACT_ATTENTION || k->role == SS_ROLE_LINEAR_ATTENTION;
    CHECK(att == (k->family == SS_FAMILY_ATTENTION), "%s: attention role and family disagree", k->name);
  }
}

TEST(registry_status_names) {
  for (int s = 0; s < SS_STATUS_COUNT; s++) {
    const char *name = ss_status_name((ss_status)s);
    CHECK(strncmp(name, "SS_", 3) == 0 && strcmp(name, "SS_STATUS_UNKNOWN") != 0, "status %d has no name", s);
    CHECK(strcmp(ss_status_str((ss_status)s), "unknown status") != 0, "status %d has no sentence", s);
    for (int t = 0; t < s; t++) CHECK(strcmp(name, ss_status_name((ss_status)t)) != 0, "%s named twice", name);
  }
}
