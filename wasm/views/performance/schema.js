// The Performance view's state: which normalizers to time, at which n, in
// which builds (the three wasm builds and plain JavaScript), and how long:
// the number of interleaved rounds and the time each candidate runs per
// round. The builds' ids are the view's own (BUILDS); the kernels come from
// the registry.
export const BUILDS = ['relaxed', 'simd', 'scalar', 'js'];
export const BUILD_LABELS = { relaxed: 'relaxed SIMD', simd: 'SIMD128', scalar: 'scalar', js: 'plain JS' };
export const N_MIN = 2 ** 10, N_MAX = 2 ** 20;

const names = (ss) => ss.kernels('normalizer').map((k) => k.name);
// The headline comparison, as far as the registry has it: the softmax, and
// the sparse pair the benchmark tables (docs site) compare with their sort-based JS.
const WANTED = ['softmax', 'sparsemax', 'entmax15'];

export const schema = {
  view: 'performance',
  fields: [
    { key: 'kernels', type: 'names', label: 'normalizers', options: names, min: 1, max: 6,
      default: (ss) => WANTED.filter((n) => names(ss).includes(n)) },
    { key: 'n', type: 'number', label: 'n', help: 'elements per call (logits uniform in [−10, 10))', pow2: true, min: N_MIN, max: N_MAX, default: 2 ** 16 },
    { key: 'builds', type: 'names', label: 'builds', options: () => BUILDS, min: 1, default: BUILDS, optionHelp: {
      relaxed: 'softscope-relaxed.wasm: SIMD128 plus relaxed SIMD (f32x4.relaxed_madd in the softmax family)',
      simd: 'softscope-simd.wasm: WebAssembly SIMD128', scalar: 'softscope-scalar.wasm: no SIMD, the reference',
      js: 'plain JavaScript over Float32Arrays, as a web developer writes it' } },
    { key: 'rounds', type: 'number', label: 'rounds', help: 'interleaved rounds; each bar is their median', integer: true, min: 1, max: 31, default: 7 },
    { key: 'ms', type: 'number', label: 'ms per round', help: 'how long each build runs a kernel per round', integer: true, min: 2, max: 200, default: 25 },
  ],
};
