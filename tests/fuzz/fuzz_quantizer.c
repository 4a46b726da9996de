/*
 * libFuzzer target: every registered quantizer through ss_quantize (kernel
 * by registry index, raw or steered parameters, raw float bits), then the
 * codes through ss_pack / ss_unpack, the VQ entry points (ss_vq_train,
 * ss_vq_assign, ss_vq_backward) and ss_adaround (caller X, stats) on fuzzed
 * shapes. Properties: no sanitizer
 * report; scalar and SIMD give the same status and bit-identical codes and
 * values; on SS_OK values finite, codes fit a byte and round-trip through
 * pack / unpack at every width they fit; raw codes pack only when in range.
 */
#include "fuzz_common.h"

static float x[FZ_MAX_N], y0[FZ_MAX_N], y1[FZ_MAX_N], cb[FZ_MAX_N], g[FZ_MAX_N], dx[FZ_MAX_N];
static int32_t c0[FZ_MAX_N], c1[FZ_MAX_N], back[FZ_MAX_N];
static uint8_t buf[FZ_MAX_N + 8];
static double loss[64];

#define FZ_MAX_ITERS 32

static void pack_round_trip(const int32_t *c, size_t n) {
  int32_t lo = 0, hi = 0;
  for (size_t i = 0; i < n; i++) lo = c[i] < lo ? c[i] : lo, hi = c[i] > hi ? c[i] : hi;
  for (int bits = 8; bits >= 2; bits /= 2)
    for (int sgn = 0; sgn < 2; sgn++) {
      const int32_t l = sgn ? -(1 << (bits - 1)) : 0, h = sgn ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
      const bool fits = lo >= l && hi <= h;
      const ss_status s = ss_pack(c, n, bits, sgn, buf);
      FZ_CHECK(n == 0 ? s == SS_ERR_EMPTY : fits ? s == SS_OK : s == SS_ERR_DOMAIN,
               "pack %d bits signed %d: %s", bits, sgn, ss_status_name(s));
      if (s != SS_OK) continue;
      FZ_CHECK(ss_unpack(buf, n, bits, sgn, back) == SS_OK && !memcmp(back, c, n * 4),
               "pack / unpack %d bits signed %d: no round trip", bits, sgn);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fz f = {data, size};
  const uint8_t what = fz_u8(&f);
  const bool simd = ss_impl_available(SS_IMPL_SIMD);
  if (what < 160) { /* a registry quantizer */
    const ss_kernel_info *k = fz_kernel_at(SS_FAMILY_QUANTIZER, what);
    const size_t n = fz_len(&f, 1024);
    double p[17];
    fz_params(&f, k, n, p);
    /* An in-range iteration count is capped: adaround costs 2 n batch
       multiply-adds per iteration, and at iters = 20000, batch = 128,
       n = 1024 one input took 93 s under ASan (both impls), past the 20 s
       timeout (a crafted input: each parameter at its default or maximum;
       not in the corpus, where its mutations took most of a short run's
       executions at 40 ms each even capped). The cap keeps an input
       near 2^20 multiply-adds per impl (at most FZ_MAX_ITERS iterations, at
       least 2). Later iterations repeat the same step; the schedule's phases
       (warm start, then beta annealed 20 -> 2) occur within any count, and
       values outside the range are left as drawn (the rejection is fuzzed). */
    const double work = (double)(n ? n : 1) * fmax(1.0, ss_param_value(k, p, "batch", 1.0));
    const double cap = fmax(2.0, fmin(FZ_MAX_ITERS, floor(0x1p20 / work)));
    for (size_t i = 0; i < k->nparams; i++)
      if (!strcmp(k->params[i].name, "iters") && p[i] > cap && p[i] <= k->params[i].max) p[i] = cap;
    fz_floats(&f, x, n);
    fz_case(k, p, x, n);
    const ss_status a = ss_quantize(k, SS_IMPL_SCALAR, x, n, p, k->nparams, c0, y0);
    const ss_status b = simd ? ss_quantize(k, SS_IMPL_SIMD, x, n, p, k->nparams, c1, y1) : a;
    FZ_CHECK(a == b, "%s n=%zu: scalar %s, SIMD %s", k->name, n, ss_status_name(a), ss_status_name(b));
    if (a != SS_OK) return 0;
    FZ_CHECK(fz_finite(y0, n), "%s: non-finite value on SS_OK", k->name);
    for (size_t i = 0; i < n; i++) FZ_CHECK(c0[i] >= -128 && c0[i] <= 255, "%s: code %d", k->name, (int)c0[i]);
    if (simd) FZ_CHECK(!memcmp(c0, c1, n * 4) && !memcmp(y0, y1, n * 4), "%s: impls differ", k->name);
    pack_round_trip(c0, n);
  } else if (what < 200) { /* raw codes through pack / unpack */
    const size_t n = fz_len(&f, FZ_MAX_N);
    for (size_t i = 0; i < n; i++) c0[i] = (int32_t)(fz_u8(&f) % 8 == 0 ? fz_u32(&f) : (int8_t)fz_u8(&f));
    pack_round_trip(c0, n);
    const int bits = (int)(int8_t)fz_u8(&f);
    const size_t nb = ss_packed_bytes(n, bits);
    FZ_CHECK(nb <= FZ_MAX_N + 8, "packed bytes %zu", nb);
  } else if (what >= 232) { /* adaround's direct call: caller X, stats */
    const size_t rows = 1 + fz_u8(&f) % 8, cols = 1 + fz_u8(&f) % 16, batch = 1 + fz_u8(&f) % 16;
    const int bits = (int)(int8_t)fz_u8(&f) % 10;
    const bool sym = fz_u8(&f) & 1;
    const unsigned iters = fz_u8(&f) % (FZ_MAX_ITERS + 1); /* 0 is rejected */
    const double lambda = fz_u8(&f) % 4 ? 10.0 * fz_unit(&f) : fz_f64_bits(&f);
    const double lr = fz_u8(&f) % 4 ? fz_unit(&f) : fz_f64_bits(&f);
    fz_floats(&f, x, rows * cols);
    fz_floats(&f, cb, cols * batch);
    fz_case(NULL, NULL, x, rows * cols);
    static float scratch[FZ_MAX_N];
    static double st0[SS_ADAROUND_NSTATS], st1[SS_ADAROUND_NSTATS];
    FZ_CHECK(ss_adaround_scratch_size(rows, cols, batch) <= FZ_MAX_N, "adaround scratch");
    const ss_status a = ss_adaround(SS_IMPL_SCALAR, x, rows, cols, cb, batch, bits, sym, iters, lambda, lr, y0, c0,
                                    scratch, st0);
    const ss_status b = simd ? ss_adaround(SS_IMPL_SIMD, x, rows, cols, cb, batch, bits, sym, iters, lambda, lr, y1,
                                           c1, scratch, st1)
                             : a;
    FZ_CHECK(a == b, "adaround direct: scalar %s, SIMD %s", ss_status_name(a), ss_status_name(b));
    if (a != SS_OK) return 0;
    const size_t n = rows * cols;
    FZ_CHECK(fz_finite(y0, n), "adaround direct: non-finite W~ on SS_OK");
    for (size_t i = 0; i < SS_ADAROUND_NSTATS; i++) FZ_CHECK(isfinite(st0[i]), "adaround direct: stats[%zu] = %g", i, st0[i]);
    for (size_t i = 0; i < n; i++) FZ_CHECK(c0[i] >= -128 && c0[i] <= 255, "adaround direct: code %d", (int)c0[i]);
    if (simd)
      FZ_CHECK(!memcmp(c0, c1, n * 4) && !memcmp(y0, y1, n * 4) && !memcmp(st0, st1, sizeof st0),
               "adaround direct: impls differ");
  } else { /* VQ: train, assign, backward */
    const size_t dim = 1 + fz_u8(&f) % 8, nvec = 1 + fz_u8(&f) % 64, kk = 1 + fz_u8(&f) % 16;
    const unsigned iters = fz_u8(&f) % 8;
    fz_floats(&f, x, nvec * dim);
    const uint64_t seed = fz_u64(&f);
    ss_status a = ss_vq_train(SS_IMPL_SCALAR, x, nvec, dim, kk, iters, seed, cb, c0, loss, y0);
    if (simd) {
      static float cb1[FZ_MAX_N];
      const ss_status b = ss_vq_train(SS_IMPL_SIMD, x, nvec, dim, kk, iters, seed, cb1, c1, loss, y1);
      FZ_CHECK(a == b, "vq_train: scalar %s, SIMD %s", ss_status_name(a), ss_status_name(b));
      if (a == SS_OK) FZ_CHECK(!memcmp(cb, cb1, kk * dim * 4) && !memcmp(c0, c1, nvec * 4), "vq_train differs");
    }
    if (a != SS_OK) {
      fz_floats(&f, cb, kk * dim);
      for (size_t i = 0; i < nvec; i++) c0[i] = (int32_t)(fz_u8(&f) % (kk + 1));
    } else {
      FZ_CHECK(fz_finite(cb, kk * dim), "vq_train: non-finite codebook");
      a = ss_vq_assign(SS_IMPL_SCALAR, x, nvec, dim, cb, kk, c1, y0);
      FZ_CHECK(a == SS_OK && fz_finite(y0, nvec * dim), "vq_assign after train: %s", ss_status_name(a));
    }
    fz_floats(&f, g, nvec * dim);
    const double beta = fz_u8(&f) % 2 ? fz_f64_bits(&f) : fz_unit(&f);
    const ss_status s = ss_vq_backward(x, nvec, dim, cb, kk, c0, g, beta, dx, y1);
    if (s == SS_OK) FZ_CHECK(fz_finite(dx, nvec * dim) && fz_finite(y1, kk * dim), "vq_backward: non-finite");
  }
  return 0;
}
