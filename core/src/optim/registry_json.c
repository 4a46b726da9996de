/* The optimizers' part of the registry JSON (registry/json.h): the 2-D test
   functions ("functions") and the learning-rate schedules' names (the enum
   "schedule"). */
#include "registry/json.h"
#include "softscope.h"

static void testfn_item(ss_json *b, size_t i) {
  const ss_testfn_info *f = ss_testfn_at(i);
  ss_json_raw(b, "{\"name\":");
  ss_json_str(b, f->name);
  ss_json_raw(b, ",\"summary\":");
  ss_json_str(b, f->summary);
  ss_json_raw(b, ",\"formula\":");
  ss_json_str(b, f->formula);
  ss_json_raw(b, ",\"view\":[");
  const double v[] = {f->xmin, f->xmax, f->ymin, f->ymax};
  for (int j = 0; j < 4; j++) {
    if (j) ss_json_raw(b, ",");
    ss_json_num(b, v[j]);
  }
  ss_json_raw(b, "],\"start\":[");
  ss_json_num(b, f->start[0]);
  ss_json_raw(b, ",");
  ss_json_num(b, f->start[1]);
  ss_json_raw(b, "],\"minima\":[");
  for (size_t j = 0; j < f->nminima; j++) {
    ss_json_raw(b, j ? ",[" : "[");
    ss_json_num(b, f->minima[j][0]);
    ss_json_raw(b, ",");
    ss_json_num(b, f->minima[j][1]);
    ss_json_raw(b, "]");
  }
  ss_json_raw(b, "],\"fmin\":");
  ss_json_num(b, f->fmin);
  ss_json_raw(b, f->game ? ",\"game\":true}" : ",\"game\":false}");
}

static size_t schedule_count(void) { return SS_SCHEDULE_COUNT; }
static void schedule_item(ss_json *b, size_t i) { ss_json_str(b, ss_schedule_name((ss_schedule)i)); }

const ss_json_section ss_json_optim_functions = {
    .key = "functions", .is_enum = false, .count = ss_testfn_count, .item = testfn_item};
const ss_json_section ss_json_optim_schedules = {
    .key = "schedule", .is_enum = true, .count = schedule_count, .item = schedule_item};
