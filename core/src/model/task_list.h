/* THE task list: one row per ss_task_kind, in enum order (tasks.c checks
   the order and the count at compile time). This file is included with
   SS_TASK defined by its user (tasks.h declares the functions, tasks.c
   builds its table); adding a task is one C file, one enum value in
   softscope.h and one row here.

   SS_TASK(kind, name, example, shape, min_n)
     kind     its ss_task_kind value
     name     ss_task_name's string
     example  writes one example (ss_task_example_fn, tasks.h)
     shape    checks the task's fields and fills its ss_task_shape except
              min_n (ss_task_shape_fn, tasks.h)
     min_n    the least n of an example */

/* retrieval (task_retrieval.c) */
SS_TASK(SS_TASK_MAX_RETRIEVAL, "max_retrieval", ss_task_max_example, ss_task_max_shape, 2)
SS_TASK(SS_TASK_KV_RETRIEVAL, "kv_retrieval", ss_task_kv_example, ss_task_kv_shape, 2)
SS_TASK(SS_TASK_KV_OR_NONE, "kv_or_none", ss_task_kv_or_none_example, ss_task_kv_or_none_shape, 3)

/* language (task_bigram_backcopy.c) */
SS_TASK(SS_TASK_BIGRAM_BACKCOPY, "bigram_backcopy", ss_task_bb_example, ss_task_bb_shape, 2)
