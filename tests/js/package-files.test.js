// The npm tarball, as `npm pack --dry-run --json` lists it (nothing is packed
// or built): each wasm build once (the widget loads the package's own wasm,
// wasm/dist/*.wasm, and holds no copy), and every wasm file the widget's
// bundle names is in the tarball, where that bundle looks for it. And the
// README's `make dist` archive and package tarball name this version.
import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { posix } from 'node:path';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const built = existsSync(`${ROOT}/wasm/dist/embed/embed.js`) && existsSync(`${ROOT}/wasm/dist/softscope-relaxed.wasm`);

describe.runIf(built)('the npm tarball', () => {
  const [pack] = built ? JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })) : [{}];
  const files = built ? pack.files.map((f) => f.path) : [];

  it('holds each wasm build once', () => {
    const wasm = files.filter((f) => f.endsWith('.wasm')).sort();
    console.log(`package: ${files.length} files, ${Math.round(pack.size / 1000)} kB packed, ${Math.round(pack.unpackedSize / 1000)} kB unpacked; wasm: ${wasm.join(', ')}`);
    expect(wasm).toEqual(['wasm/dist/softscope-relaxed.wasm', 'wasm/dist/softscope-scalar.wasm', 'wasm/dist/softscope-simd.wasm']);
    const digests = wasm.map((f) => createHash('sha256').update(readFileSync(`${ROOT}/${f}`)).digest('hex'));
    expect(new Set(digests).size).toBe(wasm.length);
  });

  it("the widget's bundle finds every wasm it names in the tarball (one folder up from embed.js)", () => {
    const bundle = files.filter((f) => f.startsWith('wasm/dist/embed/') && f.endsWith('.js'));
    expect(bundle).toContain('wasm/dist/embed/embed.js');
    const named = new Set();
    for (const f of bundle)
      for (const [, url] of readFileSync(`${ROOT}/${f}`, 'utf8').matchAll(/new URL\(["'`]([^"'`]+\.wasm)["'`],\s*import\.meta\.url\)/g))
        named.add(posix.normalize(posix.join(posix.dirname(f), url)));
    expect([...named].sort()).toEqual(['wasm/dist/softscope-relaxed.wasm', 'wasm/dist/softscope-scalar.wasm', 'wasm/dist/softscope-simd.wasm']);
    for (const f of named) expect(files, f).toContain(f);
  });
});

describe('the README', () => {
  it("names the archives of this version (make dist's, npm pack's)", () => {
    const { version } = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8'));
    const readme = readFileSync(`${ROOT}/README.md`, 'utf8');
    const named = [...readme.matchAll(/softscope(?:-embed)?-(\d+\.\d+\.\d+)/g)].map((m) => m[1]);
    expect(named.length).toBeGreaterThan(0);
    expect(new Set(named)).toEqual(new Set([version]));
  });
});
