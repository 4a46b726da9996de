// Colours: one palette for every figure, the playground and the CLI's SVG.
// A kernel's colour is fixed by its position among its family's kernels in
// the registry, so a kernel keeps its colour in every view, whatever else is
// chosen. Two themes (light, dark) give the figure's ink, paper and ramps.

/** Tableau 10, then 14 more distinct hues, so a family of 24 kernels has no repeats. */
export const SERIES = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#b07aa1', '#76b7b2', '#edc948', '#9c755f', '#ff9da7', '#bab0ac',
  '#2f4b7c', '#d45087', '#8cd17d', '#665191', '#ff7c43', '#499894', '#b6992d', '#a05195', '#003f5c', '#d37295',
  '#17becf', '#79706e', '#f1ce63', '#d4a6c8'];

export const THEMES = {
  light: {
    name: 'light', paper: '#ffffff', ink: '#1d2330', muted: '#5b6475', grid: '#e3e7ef', frame: '#b8c0cf', zero: '#8a93a6',
    accent: '#2a6fdb', warn: '#c0392b', bar: '#9bb7e0', dropped: '#d3d8e2', empirical: '#1d2330',
    // sequential ramp for heat maps: light (low) to deep blue (high); negative values in red
    ramp: ['#f7fbff', '#c6dbef', '#6baed6', '#2171b5', '#08306b'], negRamp: ['#fff5f0', '#fcbba1', '#fb6a4a', '#cb181d', '#67000d'],
    zeroCell: '#ffffff',
    // a quiet grey ramp for maps that carry coloured marks (optimizer paths)
    terrain: ['#fbfbfd', '#e4e7ee', '#c6ccd8', '#9ea7b8', '#737d91'],
  },
  dark: {
    name: 'dark', paper: '#141821', ink: '#e6e9ef', muted: '#9aa3b5', grid: '#2a3140', frame: '#4a5366', zero: '#7d879b',
    accent: '#6ea8ff', warn: '#ff7b6b', bar: '#3d5a86', dropped: '#343b4a', empirical: '#e6e9ef',
    ramp: ['#10151f', '#1d3557', '#2e6fb5', '#6bb3f0', '#d8ecff'], negRamp: ['#10151f', '#5a1d1d', '#a33a2e', '#e8735e', '#ffd7cc'],
    zeroCell: '#000000',
    terrain: ['#161a23', '#252c3b', '#3a4457', '#566179', '#7d89a2'],
  },
};

/** The theme object for 'light' | 'dark' (or a theme object itself). */
export function theme(t) {
  if (t && typeof t === 'object') return t;
  return THEMES[t] ?? THEMES.light;
}

/** Colours of a family's kernels: Map name -> colour, by registry order. */
export function kernelColors(ss, family) {
  const m = new Map();
  ss.kernels(family).forEach((k, i) => m.set(k.name, SERIES[i % SERIES.length]));
  return m;
}

/** Colours of a list of names by their position (e.g. the estimators of an enum). */
export function listColors(names, offset = 0) {
  return new Map(names.map((n, i) => [n, SERIES[(i + offset) % SERIES.length]]));
}

const hex = (c) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
// The stops of a ramp as numbers, parsed once per ramp (a heat map asks per cell).
const STOPS = new WeakMap();
const stops = (ramp) => {
  if (!STOPS.has(ramp)) STOPS.set(ramp, ramp.map(hex));
  return STOPS.get(ramp);
};

/** [r, g, b] of a ramp (an array of #rrggbb stops) at t in [0, 1]. */
export function rampRgb(ramp, t) {
  const u = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (ramp.length - 1);
  const i = Math.min(ramp.length - 2, Math.floor(u)), f = u - i;
  const p = stops(ramp), a = p[i], b = p[i + 1];
  return [Math.round(a[0] + (b[0] - a[0]) * f), Math.round(a[1] + (b[1] - a[1]) * f), Math.round(a[2] + (b[2] - a[2]) * f)];
}

/** The same as a CSS colour. */
export function rampColor(ramp, t) {
  return `rgb(${rampRgb(ramp, t).join(',')})`;
}
