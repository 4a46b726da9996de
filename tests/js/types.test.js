// The package's types: kernel names and each kernel's parameter names are
// literal unions generated from the registry (wasm/dist/registry.d.ts), so
// tsc --strict accepts correct calls (types/ok.ts) and rejects a misspelt
// kernel, a misspelt parameter, a kernel of another family, a string where a
// number goes and an unknown enum name (types/bad.ts, one error per line).
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('./types/', import.meta.url));
const TSC = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
const tsc = (file) => spawnSync(process.execPath, [TSC, '--strict', '--noEmit', '--target', 'es2022', '--module', 'nodenext',
  '--moduleResolution', 'nodenext', '--lib', 'es2022,dom', file], { cwd: DIR, encoding: 'utf8' });

describe('index.d.ts under tsc --strict', () => {
  it('correct calls compile', () => {
    const r = tsc('ok.ts');
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  }, 60000);

  it('the other entry points of package.json "exports" compile as a user imports them', () => {
    const r = tsc('subpaths.ts');
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  }, 60000);

  it('every JS entry point of package.json "exports" has its declarations', () => {
    const { exports } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    const root = new URL('../../', import.meta.url);
    for (const [key, e] of Object.entries(exports)) {
      if (typeof e === 'string') continue; // the embed bundle, package.json
      expect(e.types, key).toMatch(/\.d\.ts$/);
      const files = e.types.includes('*') ? readdirSync(new URL('wasm/views/', root), { withFileTypes: true }).filter((d) => d.isDirectory())
        .map((d) => e.types.replace('*', d.name)) : [e.types];
      for (const f of files) expect(existsSync(new URL(f, root)), `${key}: ${f}`).toBe(true);
    }
  });

  it('each wrong call is an error on its own line, and nothing else is', () => {
    const r = tsc('bad.ts');
    expect(r.status).not.toBe(0);
    const errLines = [...r.stdout.matchAll(/^bad\.ts\((\d+),\d+\): error/gm)].map((m) => Number(m[1]));
    const badLines = readFileSync(`${DIR}/bad.ts`, 'utf8').split('\n').flatMap((l, i) => (l.includes('// BAD') ? [i + 1] : []));
    expect(errLines).toEqual(badLines);
    expect(r.stdout).toContain("'\"sofmax\"' is not assignable");
    expect(r.stdout).toContain("'temprature' does not exist");
  }, 60000);
});
