// Loading a softscope wasm build: the bytes (fs in Node, fetch in a
// browser), one compiled module per URL (so several instances, e.g. several
// widgets on a page, share one download and one compile), and the imports a
// standalone reactor module asks for. The `new URL('../dist/...',
// import.meta.url)` literals are static so that bundlers (Vite) turn them
// into assets (one per build; a page downloads only the one it loads).
import { SoftscopeTypeError, describe } from './errors.js';

export const RELAXED_URL = new URL('../dist/softscope-relaxed.wasm', import.meta.url);
export const SIMD_URL = new URL('../dist/softscope-simd.wasm', import.meta.url);
export const SCALAR_URL = new URL('../dist/softscope-scalar.wasm', import.meta.url);
export const BUILD_URLS = { relaxed: RELAXED_URL, simd: SIMD_URL, scalar: SCALAR_URL };

const isNode = typeof process !== 'undefined' && !!process.versions?.node;

// ---- loading ---------------------------------------------------------------

// href -> Promise<WebAssembly.Module>, one map per page (on globalThis): an
// app's own import of the API and the copy bundled in the widget
// (softscope/embed) then share one download and one compile of each build.
const moduleCache = (globalThis[Symbol.for('softscope.wasm-modules')] ??= new Map());

async function readUrl(url) {
  if (url.protocol === 'file:' && isNode) {
    // A variable specifier keeps bundlers from trying to resolve a Node
    // builtin for the browser; this branch only runs under Node.
    const fsName = 'node:fs/promises';
    const fs = await import(/* @vite-ignore */ fsName);
    return fs.readFile(url);
  }
  const res = await fetch(url);
  if (!res.ok) throw new Error(`softscope: cannot fetch ${url.href} (HTTP ${res.status})`);
  return res.arrayBuffer();
}

function toUrl(v) {
  if (v instanceof URL) return v;
  if (typeof v === 'string') {
    if (/^[a-z][a-z0-9+.-]*:/i.test(v) && !/^[a-z]:[\\/]/i.test(v)) return new URL(v);
    if (isNode) {
      // A filesystem path, relative to the working directory.
      const abs = v.startsWith('/') ? v : `${process.cwd()}/${v}`;
      return new URL(`file://${abs.split('/').map(encodeURIComponent).join('/')}`);
    }
    return new URL(v, globalThis.location?.href);
  }
  return null;
}

export async function compile(source) {
  if (source instanceof WebAssembly.Module) return source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) return WebAssembly.compile(source);
  const url = toUrl(source);
  if (!url) throw new SoftscopeTypeError(`createSoftscope: options.wasm must be bytes, a URL or a WebAssembly.Module (got ${describe(source)})`, { argument: 'options.wasm' });
  let p = moduleCache.get(url.href);
  if (!p) {
    p = readUrl(url).then((bytes) => WebAssembly.compile(bytes));
    moduleCache.set(url.href, p);
    p.catch(() => moduleCache.delete(url.href));
  }
  return p;
}

// The reactor module imports env.emscripten_notify_memory_growth and, depending
// on what libc pulls in, a few WASI preview1 functions. Only fd_write does
// anything (stdout/stderr to the console, for debug prints from C); the rest
// report ENOSYS, and proc_exit throws since a library must never exit.
function makeImports(module, getMemory) {
  const ENOSYS = 52;
  const dec = new TextDecoder();
  const pending = { 1: '', 2: '' };
  const wasi = {
    fd_write(fd, iovs, iovsLen, nwrittenPtr) {
      const mem = new DataView(getMemory().buffer);
      let n = 0;
      for (let i = 0; i < iovsLen; i++) {
        const ptr = mem.getUint32(iovs + 8 * i, true), len = mem.getUint32(iovs + 8 * i + 4, true);
        pending[fd] = (pending[fd] ?? '') + dec.decode(new Uint8Array(getMemory().buffer, ptr, len));
        n += len;
      }
      const lines = pending[fd].split('\n');
      pending[fd] = lines.pop();
      for (const l of lines) (fd === 2 ? console.error : console.log)(l);
      mem.setUint32(nwrittenPtr, n, true);
      return 0;
    },
    proc_exit(code) {
      throw new Error(`softscope: the wasm module called exit(${code})`);
    },
  };
  const imports = {};
  for (const imp of WebAssembly.Module.imports(module)) {
    if (imp.kind !== 'function') continue;
    const ns = (imports[imp.module] ??= {});
    if (imp.module === 'env' && imp.name === 'emscripten_notify_memory_growth') ns[imp.name] = () => {};
    else if (imp.module === 'wasi_snapshot_preview1' && wasi[imp.name]) ns[imp.name] = wasi[imp.name];
    else ns[imp.name] = () => ENOSYS;
  }
  return imports;
}

function ready(instance, setMemory) {
  const ex = instance.exports;
  setMemory(ex.memory);
  if (typeof ex._initialize === 'function') ex._initialize();
  return ex;
}

/** Instantiate a compiled module: its exports, with the reactor initialized. */
export async function instantiate(module) {
  let memory = null;
  const instance = await WebAssembly.instantiate(module, makeImports(module, () => memory));
  return ready(instance, (m) => { memory = m; });
}

/** The same, synchronously (a fresh instance of an already compiled module:
 *  how a Softscope re-creates its instance, see Softscope.reset). */
export function instantiateSync(module) {
  let memory = null;
  const instance = new WebAssembly.Instance(module, makeImports(module, () => memory));
  return ready(instance, (m) => { memory = m; });
}
