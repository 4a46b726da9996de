// The memory one CLI call may take. A command builds what it prints (a
// path, a JSON text, a PNG) in memory first, so every command whose output
// grows with an argument checks its size against this bound before the work
// starts, and exits 2 with one line naming the flag to change; what it does
// not print (the steps of a long optimizer run) it streams.
import { UsageError } from './shared.js';

/** Bytes of output one call may hold: 256 MiB. */
export const MEMORY_LIMIT = 256 * 2 ** 20;

/** Bytes one optimizer point [x, y, f] takes, kept and printed as JSON
 *  (the array of three doubles, its text and the replacer's copies;
 *  measured: 10^6 points peak at 526 MB over the process's 65 MB). */
export const BYTES_PER_POINT = 1024;

/** The points of a path one call may print: MEMORY_LIMIT / BYTES_PER_POINT
 *  (262,144). */
export const MAX_POINTS = MEMORY_LIMIT / BYTES_PER_POINT;

/** Bytes one number of a JSON array takes while it is built and printed
 *  (measured: 2^22 draws of an index sampler peaked at 374 MB, 74 each over
 *  the process's 65 MB, with the wasm memory the draws took). */
export const BYTES_PER_NUMBER = 128;

/** The numbers a JSON output may print: MEMORY_LIMIT / BYTES_PER_NUMBER
 *  (2,097,152). */
export const MAX_NUMBERS = MEMORY_LIMIT / BYTES_PER_NUMBER;

// A PNG's pixels are capped where it is drawn (figures/png.js: MAX_PNG_PIXELS,
// 2^25 pixels at 8 bytes each while drawn and encoded: this budget).

const MiB = (b) => `${Math.ceil(b / 2 ** 20)} MiB`;

/** Throws a UsageError when `bytes` exceed MEMORY_LIMIT: "<what> would take
 *  about N MiB, more than the 256 MiB one call may use; <remedy>". */
export function requireMemory(bytes, what, remedy) {
  if (bytes > MEMORY_LIMIT)
    throw new UsageError(`${what} would take about ${MiB(bytes)}, more than the ${MiB(MEMORY_LIMIT)} one call may use; ${remedy}`);
}
