// softscope/embed on a server: importing the element's module where there is
// no DOM (SSR, a VitePress build, a test in Node) neither throws nor defines
// anything; the element is defined only where customElements exists. Both
// the source (web/src/embed/embed.js) and the built bundle (`make embed`,
// wasm/dist/embed/embed.js, what `import 'softscope/embed'` loads) are imported
// by plain Node, in a process of its own.
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BUNDLE = `${ROOT}wasm/dist/embed/embed.js`;

// The module imported by `node` in the package's root; prints the DOM globals' types afterwards.
function importInNode(specifier) {
  const code = `await import(${JSON.stringify(specifier)});
console.log([typeof HTMLElement, typeof customElements, typeof document].join(' '));`;
  return spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, encoding: 'utf8' });
}

describe('importing the embed where there is no DOM', () => {
  it('the source module imports in Node and exports the element class, defining nothing', async () => {
    expect(typeof globalThis.HTMLElement).toBe('undefined');
    const m = await import('../../web/src/embed/embed.js');
    expect(typeof m.SoftscopeWidget).toBe('function');
    expect(typeof globalThis.customElements).toBe('undefined');
  });

  it.runIf(existsSync(BUNDLE))("import 'softscope/embed' (the built bundle) in plain Node does not throw", () => {
    const r = importInNode('softscope/embed');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe('undefined undefined undefined');
  });
});
