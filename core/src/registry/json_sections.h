/* THE list of the registry JSON's parts that families write (see
   registry/json.h), in the order they appear; each line names an
   ss_json_section ss_json_<name> defined in its family's folder. Included
   with SS_JSON_SECTION defined by its user (json.h declares, json.c writes). */

SS_JSON_SECTION(optim_functions) /* core/src/optim/registry_json.c: "functions" */
SS_JSON_SECTION(optim_schedules) /* core/src/optim/registry_json.c: enums "schedule" */
SS_JSON_SECTION(model_positions) /* core/src/model/registry_json.c: enums "positions" */
SS_JSON_SECTION(model_tasks)     /* core/src/model/registry_json.c: enums "task" */
SS_JSON_SECTION(model_task_loss_at) /* core/src/model/registry_json.c: enums "task_loss_at" */
SS_JSON_SECTION(model_norms)     /* core/src/model/registry_json.c: enums "norm" */
SS_JSON_SECTION(model_loss_at)   /* core/src/model/registry_json.c: enums "loss_at" */
SS_JSON_SECTION(model_tensor_kinds) /* core/src/model/registry_json.c: enums "tensor_kind" */
SS_JSON_SECTION(model_structs)   /* core/src/model/registry_json.c: "model_structs" */
