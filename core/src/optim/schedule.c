/*
 * Learning-rate schedules, as a factor on lr at step t = 1, 2, ..., total.
 *
 *   warm-up (cosine, wsd): t / warmup for t <= warmup (linear from ~0)
 *   cosine (Loshchilov & Hutter 2017, "SGDR"): then
 *       min + (1 - min) (1 + cos(pi p)) / 2,  p = (t - warmup) / (total - warmup)
 *   wsd, warm-up-stable-decay (Hu et al. 2024, "MiniCPM"; Hagele et al.
 *   2024, "Scaling Laws and Compute-Optimal Training Beyond Fixed Training
 *   Durations"): 1 until the last decay * total steps, then linear to min
 *       1 - (1 - min) (t - t0) / (total - t0),  t0 = total - decay * total
 *
 * Steps past total keep the final factor.
 */
#include <math.h>

#include "softscope.h"

const char *ss_schedule_name(ss_schedule s) {
  switch (s) {
    case SS_SCHEDULE_COSINE: return "cosine";
    case SS_SCHEDULE_WSD: return "wsd";
    default: return "constant";
  }
}

double ss_schedule_factor(ss_schedule s, double t, double total, double warmup, double decay,
                          double min_factor) {
  if (s == SS_SCHEDULE_CONSTANT) return 1.0;
  if (warmup > 0.0 && t <= warmup) return t / warmup;
  if (t > total) t = total;
  if (s == SS_SCHEDULE_COSINE) {
    const double span = total - warmup;
    const double p = span > 0.0 ? (t - warmup) / span : 1.0;
    return min_factor + (1.0 - min_factor) * 0.5 * (1.0 + cos(3.14159265358979323846 * p));
  }
  const double t0 = total - decay * total;
  if (t <= t0 || total <= t0) return 1.0;
  return 1.0 - (1.0 - min_factor) * (t - t0) / (total - t0);
}
