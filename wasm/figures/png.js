// SVG to PNG in Node, by resvg (a maintained rasterizer whose npm package
// ships its native binary; an optional dependency, loaded on demand). The
// browser rasterizes through a canvas instead (web/src/components/ExportBar.jsx).

/** PNG bytes of SVG text at `scale` times its size (Node: @resvg/resvg-js). */
export async function svgToPng(svg, { scale = 2, background } = {}) {
  let Resvg;
  try {
    const name = '@resvg/resvg-js'; // a variable: bundlers leave it alone
    ({ Resvg } = await import(/* @vite-ignore */ name));
  } catch (e) {
    throw new Error(`PNG output needs the optional dependency @resvg/resvg-js (npm install @resvg/resvg-js): ${e.message}`);
  }
  const r = new Resvg(svg, { fitTo: { mode: 'zoom', value: scale }, background, font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' } });
  return r.render().asPng();
}
