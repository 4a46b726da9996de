// The package's public entry points (package.json "exports") as Vite
// aliases, so web/ imports 'softscope', 'softscope/views/<id>', ... the way
// a user of the package does, and Vite resolves them to the sources (the
// wasm builds are then found by import.meta.url next to the sources; see
// vite.config.js). One list: package.json; a pattern ("./views/*") becomes a
// regular expression.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
const { name, exports } = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const target = (e) => (typeof e === 'string' ? e : e.default);
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** [{ find: RegExp, replacement }] for every JS entry point, the exact ones before the patterns. */
export const exportsAlias = Object.entries(exports)
  .filter(([key, e]) => /\.js$/.test(target(e)) && !target(e).includes('/dist/'))
  .sort(([a], [b]) => a.includes('*') - b.includes('*'))
  .map(([key, e]) => {
    const spec = name + key.slice(1);
    const file = fileURLToPath(new URL(target(e), root));
    if (!key.includes('*')) return { find: new RegExp(`^${escape(spec)}$`), replacement: file };
    const [pre, post] = spec.split('*');
    return { find: new RegExp(`^${escape(pre)}([\\w-]+)${escape(post)}$`), replacement: file.replace('*', '$1') };
  });
