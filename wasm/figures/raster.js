// Heat maps as pictures: a matrix of values becomes an RGBA raster, which an
// SVG embeds as a PNG data URI (one <image> instead of n·m rectangles, so an
// attention map of 256 × 256 stays a small file). The PNG is written here
// (signature, IHDR, IDAT with fflate's zlib, IEND; CRC-32 per chunk), so the
// same bytes come out in Node and in the browser.
import { zlibSync } from 'fflate';
import { rampRgb } from './palette.js';

const CRC = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

function crc32(bytes) {
  let c = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) c = CRC[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const out = new Uint8Array(12 + data.length), dv = new DataView(out.buffer);
  dv.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  dv.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** PNG bytes of a width x height RGBA raster (row 0 at the top); level: zlib's, 1 (fast) to 9 (small). */
export function encodePng(rgba, width, height, level = 6) {
  const raw = new Uint8Array((4 * width + 1) * height);
  for (let y = 0; y < height; y++) raw.set(rgba.subarray(4 * width * y, 4 * width * (y + 1)), (4 * width + 1) * y + 1);
  const ihdr = new Uint8Array(13), dv = new DataView(ihdr.buffer);
  dv.setUint32(0, width);
  dv.setUint32(4, height);
  ihdr.set([8, 6, 0, 0, 0], 8); // 8 bits, RGBA, deflate, no filter method, no interlace
  const parts = [new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', zlibSync(raw, { level })), chunk('IEND', new Uint8Array(0))];
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let o = 0;
  for (const p of parts) { out.set(p, o); o += p.length; }
  return out;
}

function base64(bytes) {
  if (typeof Buffer !== 'undefined') return Buffer.from(bytes).toString('base64');
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

/** A data URI of the PNG of an RGBA raster. */
export function pngDataUri(rgba, width, height, level) {
  return `data:image/png;base64,${base64(encodePng(rgba, width, height, level))}`;
}

/**
 * RGBA of a rows x cols matrix (row-major values): t = color(v) in [0, 1]
 * picks the ramp; exact zeros get zeroCell (so sparsity shows) when given;
 * negative values the negRamp by |v|.
 */
export function matrixRgba(values, rows, cols, { ramp, negRamp, zeroCell, t }) {
  const px = new Uint8ClampedArray(rows * cols * 4);
  const z = zeroCell ? [1, 3, 5].map((i) => parseInt(zeroCell.slice(i, i + 2), 16)) : null;
  for (let k = 0; k < rows * cols; k++) {
    const v = values[k];
    const c = v === 0 && z ? z : v < 0 && negRamp ? rampRgb(negRamp, t(-v)) : rampRgb(ramp, t(v));
    px[4 * k] = c[0]; px[4 * k + 1] = c[1]; px[4 * k + 2] = c[2]; px[4 * k + 3] = 255;
  }
  return px;
}

/**
 * An RGBA raster (width x height) with every pixel repeated k x k times, so a
 * small matrix stays crisp whatever a renderer does when it scales an image
 * (resvg smooths, browsers may).
 */
export function upscaleRgba(rgba, width, height, k) {
  if (k <= 1) return rgba;
  const w = width * k, out = new Uint8ClampedArray(w * height * k * 4);
  const px = new Uint32Array(rgba.buffer, rgba.byteOffset, width * height), o32 = new Uint32Array(out.buffer);
  for (let y = 0; y < height; y++) {
    const row = y * k * w;
    for (let x = 0; x < width; x++) o32.fill(px[y * width + x], row + x * k, row + x * k + k);
    for (let r = 1; r < k; r++) o32.copyWithin(row + r * w, row, row + w);
  }
  return out;
}
