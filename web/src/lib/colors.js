// One color per normalizer, fixed by its position in the registry's list of
// normalizers, so a kernel keeps its color in the chooser, its chart and its
// parameter chips whatever else is selected. Tableau 10, then 14 more
// distinct hues so that a registry of ~24 normalizers has no repeats.
export const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#b07aa1', '#76b7b2', '#edc948', '#9c755f', '#ff9da7', '#bab0ac',
  '#2f4b7c', '#d45087', '#8cd17d', '#665191', '#ff7c43', '#499894', '#b6992d', '#a05195', '#003f5c', '#d37295',
  '#17becf', '#79706e', '#f1ce63', '#d4a6c8'];

export function colorMap(names) {
  const m = new Map();
  names.forEach((name, i) => m.set(name, PALETTE[i % PALETTE.length]));
  return m;
}
