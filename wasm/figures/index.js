// softscope/figures: what a figure is drawn with, for the playground's
// controls and for users drawing their own (types: index.d.ts). The
// figures themselves come with their views (softscope/views/<id>).
export { fmt, pct, count } from './format.js';
export { scaleLinear, scaleLog, scaleBand } from './scale.js';
export { kernelColors, listColors, theme, SERIES } from './palette.js';
export { formulaParts } from './formula.js';
export { placeLabels } from './labels.js';
