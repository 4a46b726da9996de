/*
 * Packing of integer codes into bytes: 8, 4 or 2 bits per code, code j of
 * a byte in bits [j b, (j + 1) b) -- lowest first, as GGML / GPTQ-style
 * int4 storage does (two codes per byte for 4 bits, four for 2 bits).
 * Signed codes are stored in two's complement in their b bits and
 * sign-extended by ss_unpack; a code outside the b-bit range (signed:
 * -2^(b-1) .. 2^(b-1) - 1, unsigned: 0 .. 2^b - 1) is SS_ERR_DOMAIN.
 * ceil(n b / 8) bytes are written; the unused high bits of the last byte
 * are 0.
 */
#include <string.h>

#include "common/check.h"
#include "softscope.h"

static bool bits_ok(int bits) { return bits == 2 || bits == 4 || bits == 8; }

/* 0 for a width or an n (> SS_MAX_N) no call accepts: n bits cannot wrap. */
size_t ss_packed_bytes(size_t n, int bits) {
  return bits_ok(bits) && n <= SS_MAX_N ? (n * (size_t)bits + 7) / 8 : 0;
}

ss_status ss_pack(const int32_t *codes, size_t n, int bits, bool is_signed, uint8_t *out) {
  if (!codes || !out) return SS_ERR_NULL;
  if (!bits_ok(bits)) return SS_ERR_PARAM_RANGE;
  const ss_status s = ss_check_n(n);
  if (s != SS_OK) return s;
  const int32_t lo = is_signed ? -(1 << (bits - 1)) : 0;
  const int32_t hi = is_signed ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
  for (size_t i = 0; i < n; i++)
    if (codes[i] < lo || codes[i] > hi) return SS_ERR_DOMAIN;
  const size_t per = (size_t)(8 / bits);
  const uint32_t mask = (1u << bits) - 1;
  memset(out, 0, ss_packed_bytes(n, bits));
  for (size_t i = 0; i < n; i++)
    out[i / per] |= (uint8_t)(((uint32_t)codes[i] & mask) << ((i % per) * (size_t)bits));
  return SS_OK;
}

ss_status ss_unpack(const uint8_t *in, size_t n, int bits, bool is_signed, int32_t *codes) {
  if (!in || !codes) return SS_ERR_NULL;
  if (!bits_ok(bits)) return SS_ERR_PARAM_RANGE;
  const ss_status s = ss_check_n(n);
  if (s != SS_OK) return s;
  const size_t per = (size_t)(8 / bits);
  const uint32_t mask = (1u << bits) - 1, sign = 1u << (bits - 1);
  for (size_t i = 0; i < n; i++) {
    uint32_t v = ((uint32_t)in[i / per] >> ((i % per) * (size_t)bits)) & mask;
    codes[i] = is_signed && (v & sign) ? (int32_t)v - (int32_t)(mask + 1) : (int32_t)v;
  }
  return SS_OK;
}
