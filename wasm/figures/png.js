// SVG to PNG in Node, by resvg (a maintained rasterizer whose npm package
// ships its native binary; an optional dependency, loaded on demand). The
// browser rasterizes through a canvas instead (web/src/components/ExportBar.jsx).

/** The PNG's pixels per SVG pixel, each way (a sharp figure on a HiDPI screen). */
export const PNG_SCALE = 2;

/** The most pixels a PNG may have: 2^25 (32 M, e.g. 4096 x 8192), 128 MiB
 *  as RGBA in the rasterizer and about as much again while it is encoded.
 *  (An 8000 x 8000 figure at scale 2 is 256 M pixels and took 2.1 GB.) */
export const MAX_PNG_PIXELS = 2 ** 25;

/** The pixels of a PNG of a width x height SVG at `scale`. */
export function pngPixels(width, height, scale = PNG_SCALE) {
  return Math.ceil(width * scale) * Math.ceil(height * scale);
}

/** PNG bytes of SVG text at `scale` times its size (Node: @resvg/resvg-js).
 *  More than MAX_PNG_PIXELS is an Error (a RangeError), before any is drawn. */
export async function svgToPng(svg, { scale = PNG_SCALE, background } = {}) {
  let Resvg;
  try {
    const name = '@resvg/resvg-js'; // a variable: bundlers leave it alone
    ({ Resvg } = await import(/* @vite-ignore */ name));
  } catch (e) {
    throw new Error(`PNG output needs the optional dependency @resvg/resvg-js (npm install @resvg/resvg-js): ${e.message}`);
  }
  const r = new Resvg(svg, { fitTo: { mode: 'zoom', value: scale }, background, font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } });
  const px = pngPixels(r.width, r.height, scale);
  if (px > MAX_PNG_PIXELS)
    throw new RangeError(`svgToPng: a ${r.width} x ${r.height} figure at scale ${scale} is ${px} pixels, more than the ${MAX_PNG_PIXELS} a PNG may have`);
  return r.render().asPng();
}
