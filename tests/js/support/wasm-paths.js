// The wasm builds by path, for tests that run under happy-dom: there Vite
// rewrites the package's `new URL('./dist/...', import.meta.url)` into an
// http URL, so createSoftscope is given the files instead (the Vitest root is
// the repo).
export const WASM = {
  simd: `${process.cwd()}/wasm/dist/softscope-simd.wasm`,
  scalar: `${process.cwd()}/wasm/dist/softscope-scalar.wasm`,
  relaxed: `${process.cwd()}/wasm/dist/softscope-relaxed.wasm`,
};
