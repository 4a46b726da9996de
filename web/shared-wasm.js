// A Vite plugin for the playground's and the embed bundle's builds: the wasm
// builds are not copied into the output (renamed by their hash) but loaded
// from one folder up from the chunks, where the Makefile puts the three files
// once: wasm/dist/ for the embed bundle (wasm/dist/embed/, as the package
// ships it), web/dist/ for the playground (web/dist/assets/). The API finds
// its wasm at new URL('../dist/softscope-*.wasm', import.meta.url)
// (wasm/api/load.js); in the bundles that URL becomes '../softscope-*.wasm',
// left as written: a literal that an app's bundler resolves to the package's
// own file, as it does the API's, so an app that imports both the API and
// the widget holds, downloads and compiles each build once.
const RE = /new URL\('\.\.\/dist\/(softscope-\w+\.wasm)', import\.meta\.url\)/g;

export function sharedWasm() {
  return {
    name: 'softscope:shared-wasm',
    enforce: 'pre',
    apply: 'build',
    transform(code, id) {
      if (!id.endsWith('/wasm/api/load.js')) return null;
      const n = code.match(RE)?.length ?? 0;
      if (n !== 3) throw new Error(`sharedWasm: expected the three builds' URLs in ${id}, found ${n}`);
      return code.replace(RE, "new URL(/* @vite-ignore */ '../$1', import.meta.url)");
    },
  };
}
