// A figure as a file: the same Preact component the browser mounts, rendered
// to an SVG string (preact-render-to-string). PNG: png.js (Node only).
import { renderToString } from 'preact-render-to-string';

/** The SVG text of a figure element (a standalone file, with the XML declaration). */
export function svgString(vnode) {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${renderToString(vnode)}\n`;
}
