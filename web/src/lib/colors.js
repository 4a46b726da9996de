// One color per normalizer, fixed by its position in the registry's list of
// normalizers, so a kernel keeps its color in the chooser, its chart and its
// parameter chips whatever else is selected. (Tableau 10, reordered.)
const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#b07aa1', '#76b7b2', '#edc948', '#9c755f', '#ff9da7', '#bab0ac'];

export function colorMap(names) {
  const m = new Map();
  names.forEach((name, i) => m.set(name, PALETTE[i % PALETTE.length]));
  return m;
}
