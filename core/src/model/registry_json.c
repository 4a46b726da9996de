/* The model's part of the registry JSON (registry/json.h): the enums
   "positions" and "task" (names by value), and "model_structs": the size
   and field offsets of each struct of the model's C API in the build that
   writes it, so a caller that lays them out in memory (the JS API,
   wasm/api/model.js) reads them from the module instead of copying them.
   The config's entry also carries the limits of softscope.h. */
#include <stddef.h>

#include "registry/json.h"
#include "softscope.h"

static const char *positions_name(size_t i) {
  switch ((ss_positions)i) {
    case SS_POSITIONS_NONE: return "none";
    case SS_POSITIONS_SINUSOIDAL: return "sinusoidal";
    case SS_POSITIONS_LEARNED: return "learned";
    case SS_POSITIONS_ROPE: return "rope";
    case SS_POSITIONS_COUNT: break;
  }
  return NULL;
}

static size_t positions_count(void) { return SS_POSITIONS_COUNT; }
static void positions_item(ss_json *b, size_t i) { ss_json_str(b, positions_name(i)); }
static size_t task_count(void) { return SS_TASK_COUNT; }
/* The small enums, by their C order. */
static const char *const NORMS[SS_MODEL_NORM_COUNT] = {"rmsnorm", "layernorm"};
static const char *const LOSS_AT[SS_LOSS_AT_COUNT] = {"last", "every"};
static const char *const TENSOR_KINDS[SS_TENSOR_KIND_COUNT] = {"embedding", "matrix", "gain", "bias",
                                                               "normalizer"};
/* Where each task's loss reads ("last" or "every"), by task (its shape's
   loss_at does not depend on the task's sizes: asked at valid ones). */
static void task_loss_at_item(ss_json *b, size_t i) {
  const ss_task t = {.kind = (uint32_t)i, .values = 16, .keys = 3};
  ss_task_shape sh = {0};
  ss_task_shape_of(&t, &sh);
  ss_json_str(b, sh.loss_at < SS_LOSS_AT_COUNT ? LOSS_AT[sh.loss_at] : "last");
}
static size_t norm_count(void) { return SS_MODEL_NORM_COUNT; }
static void norm_item(ss_json *b, size_t i) { ss_json_str(b, NORMS[i]); }
static size_t loss_at_count(void) { return SS_LOSS_AT_COUNT; }
static void loss_at_item(ss_json *b, size_t i) { ss_json_str(b, LOSS_AT[i]); }
static size_t kind_count(void) { return SS_TENSOR_KIND_COUNT; }
static void kind_item(ss_json *b, size_t i) { ss_json_str(b, TENSOR_KINDS[i]); }
static void task_item(ss_json *b, size_t i) { ss_json_str(b, ss_task_name((uint32_t)i)); }

static void num_member(ss_json *b, const char *key, double v, bool first) {
  if (!first) ss_json_raw(b, ",");
  ss_json_str(b, key);
  ss_json_raw(b, ":");
  ss_json_num(b, v);
}

/* One struct: {"name":..., "size":..., "fields":{"field":offset, ...}. */
#define FIELD(T, f) num_member(b, #f, (double)offsetof(T, f), first), first = false
#define OPEN(T)                                  \
  ss_json_raw(b, "{\"name\":");                  \
  ss_json_str(b, #T);                            \
  num_member(b, "size", (double)sizeof(T), false); \
  ss_json_raw(b, ",\"fields\":{");               \
  bool first = true

static void struct_item(ss_json *b, size_t i) {
  switch (i) {
    case 0: {
      OPEN(ss_model_config);
      FIELD(ss_model_config, vocab_a); FIELD(ss_model_config, vocab_b); FIELD(ss_model_config, classes);
      FIELD(ss_model_config, d); FIELD(ss_model_config, heads); FIELD(ss_model_config, layers);
      FIELD(ss_model_config, mlp); FIELD(ss_model_config, positions); FIELD(ss_model_config, max_n);
      FIELD(ss_model_config, causal); FIELD(ss_model_config, train_norm_params); FIELD(ss_model_config, feature);
      FIELD(ss_model_config, norm); FIELD(ss_model_config, tied); FIELD(ss_model_config, loss_at); FIELD(ss_model_config, seed);
      FIELD(ss_model_config, attention); FIELD(ss_model_config, normalizer); FIELD(ss_model_config, norm_params);
      FIELD(ss_model_config, norm_nparams); FIELD(ss_model_config, loss); FIELD(ss_model_config, loss_params);
      FIELD(ss_model_config, loss_nparams);
      ss_json_raw(b, "},\"limits\":{");
      num_member(b, "max_d", SS_MODEL_MAX_D, true);
      num_member(b, "max_heads", SS_MODEL_MAX_HEADS, false);
      num_member(b, "max_layers", SS_MODEL_MAX_LAYERS, false);
      num_member(b, "max_vocab", SS_MODEL_MAX_VOCAB, false);
      num_member(b, "max_n", SS_MODEL_MAX_N, false);
      break;
    }
    case 1: {
      OPEN(ss_model_tensor);
      FIELD(ss_model_tensor, name); FIELD(ss_model_tensor, kind); FIELD(ss_model_tensor, layer);
      FIELD(ss_model_tensor, offset); FIELD(ss_model_tensor, rows); FIELD(ss_model_tensor, cols);
      FIELD(ss_model_tensor, init_std);
      break;
    }
    case 2: {
      OPEN(ss_model_batch);
      FIELD(ss_model_batch, batch); FIELD(ss_model_batch, n); FIELD(ss_model_batch, tokens_a);
      FIELD(ss_model_batch, tokens_b); FIELD(ss_model_batch, feature); FIELD(ss_model_batch, target);
      break;
    }
    case 3: {
      OPEN(ss_model_outputs);
      FIELD(ss_model_outputs, loss); FIELD(ss_model_outputs, accuracy); FIELD(ss_model_outputs, pred);
      FIELD(ss_model_outputs, logits); FIELD(ss_model_outputs, query_attn); FIELD(ss_model_outputs, maps);
      FIELD(ss_model_outputs, map_example); FIELD(ss_model_outputs, position_loss);
      FIELD(ss_model_outputs, hidden); FIELD(ss_model_outputs, values);
      break;
    }
    case 4: {
      OPEN(ss_model_optim);
      FIELD(ss_model_optim, optimizer); FIELD(ss_model_optim, params); FIELD(ss_model_optim, nparams);
      FIELD(ss_model_optim, schedule); FIELD(ss_model_optim, total); FIELD(ss_model_optim, warmup);
      FIELD(ss_model_optim, decay); FIELD(ss_model_optim, min_factor);
      ss_json_raw(b, "},\"limits\":{");
      num_member(b, "scalars_per_tensor", SS_OPT_SCALARS, true);
      break;
    }
    case 5: {
      OPEN(ss_task);
      FIELD(ss_task, kind); FIELD(ss_task, values); FIELD(ss_task, keys);
      break;
    }
    default: {
      OPEN(ss_task_shape);
      FIELD(ss_task_shape, vocab_a); FIELD(ss_task_shape, vocab_b); FIELD(ss_task_shape, classes);
      FIELD(ss_task_shape, feature); FIELD(ss_task_shape, loss_at); FIELD(ss_task_shape, min_n);
      break;
    }
  }
  ss_json_raw(b, "}}");
}
#undef FIELD
#undef OPEN

static size_t struct_count(void) { return 7; }

const ss_json_section ss_json_model_positions = {
    .key = "positions", .is_enum = true, .count = positions_count, .item = positions_item};
const ss_json_section ss_json_model_tasks = {
    .key = "task", .is_enum = true, .count = task_count, .item = task_item};
const ss_json_section ss_json_model_task_loss_at = {
    .key = "task_loss_at", .is_enum = true, .count = task_count, .item = task_loss_at_item};
const ss_json_section ss_json_model_norms = {
    .key = "norm", .is_enum = true, .count = norm_count, .item = norm_item};
const ss_json_section ss_json_model_loss_at = {
    .key = "loss_at", .is_enum = true, .count = loss_at_count, .item = loss_at_item};
const ss_json_section ss_json_model_tensor_kinds = {
    .key = "tensor_kind", .is_enum = true, .count = kind_count, .item = kind_item};
const ss_json_section ss_json_model_structs = {
    .key = "model_structs", .is_enum = false, .count = struct_count, .item = struct_item};
