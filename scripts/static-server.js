// A tiny static file server (no dependencies): serves .wasm as
// application/wasm so WebAssembly.instantiateStreaming accepts it, and sends
// Access-Control-Allow-Origin: * with every file, so that a page of another
// origin can load the embed script (a module script) and its wasm (a fetch),
// and so can a sandboxed iframe, whose origin is opaque ("null"). Used by
// `make play` (the built site) and the browser tests.
//   node scripts/static-server.js DIR [PORT]
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

// public files: any page may load them (GET needs no preflight)
const CORS_HEADERS = { 'access-control-allow-origin': '*' };

/** Serves `root` on 127.0.0.1 at a free port; resolves to { url, close() }.
 *  cors: false leaves the CORS header out (a server as many are: the tests' case);
 *  headers: more headers on every response (the benchmark's cross-origin isolation). */
export function serveStatic(root, port = 0, { cors = true, headers = {} } = {}) {
  const base = resolve(root);
  const CORS = { ...(cors ? CORS_HEADERS : {}), ...headers };
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      let file = normalize(join(base, path));
      if (file !== base && !file.startsWith(base + sep)) throw Object.assign(new Error('outside root'), { code: 'ENOENT' });
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream', 'cache-control': 'no-store', ...CORS });
      res.end(body);
    } catch (e) {
      res.writeHead(e.code === 'ENOENT' || e.code === 'ENOTDIR' ? 404 : 500, { 'content-type': 'text/plain', ...CORS });
      res.end(String(e.message));
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}/`, close: () => new Promise((r) => { server.close(r); server.closeAllConnections(); }) });
    });
  });
}

// Run as a command: serve DIR on 127.0.0.1:PORT until interrupted.
if (import.meta.url === `file://${process.argv[1]}`) {
  const [dir = '.', port = '5173'] = process.argv.slice(2);
  const { url } = await serveStatic(dir, Number(port));
  console.log(`softscope: serving ${dir} at ${url} (Ctrl-C to stop)`);
}
