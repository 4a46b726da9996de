// The package's types: kernel names and each kernel's parameter names, test
// functions and schedules are literal unions generated from the registry
// (wasm/dist/registry.d.ts), view ids a union held to views/index.js, and
// <softscope-widget> has its element type (HTMLElementTagNameMap, its events)
// and its tag in Preact's and React's JSX. tsc --strict accepts correct code
// (types/ok.ts, subpaths.ts, embed.ts, jsx-*.tsx) and rejects a misspelt
// kernel, parameter, optimizer, test function, schedule or view, a kernel of
// another family, a string where a number goes, a bad widget attribute
// (types/*bad*, each line marked BAD an error, and nothing else). The entry
// points also resolve under the older moduleResolution node10 (typesVersions).
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, existsSync, mkdtempSync, mkdirSync, symlinkSync, copyFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { VIEW_IDS } from '../../wasm/views/index.js';

const DIR = fileURLToPath(new URL('./types/', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = fileURLToPath(new URL('../../node_modules/typescript/bin/tsc', import.meta.url));
const PKG = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
const GOOD = ['ok.ts', 'subpaths.ts', 'embed.ts', 'jsx-preact.tsx', 'jsx-react.tsx'];
const BAD = ['bad.ts', 'embed-bad.ts', 'jsx-preact-bad.tsx', 'jsx-react-bad.tsx'];

// One tsc run over files (a .tsx names its JSX in a @jsxImportSource pragma): { file: [error lines] } and the output.
function tsc(files, { cwd = DIR, resolution = 'nodenext' } = {}) {
  const r = spawnSync(process.execPath, [TSC, '--strict', '--noEmit', '--target', 'es2022', '--module', resolution === 'nodenext' ? 'nodenext' : 'esnext',
    '--moduleResolution', resolution, '--lib', 'es2022,dom', '--jsx', 'react-jsx', ...files], { cwd, encoding: 'utf8' });
  const errors = Object.fromEntries(files.map((f) => [f, []]));
  for (const m of r.stdout.matchAll(/^([\w.-]+)\((\d+),\d+\): error/gm)) (errors[m[1]] ??= []).push(Number(m[2]));
  return { errors, out: r.stdout + r.stderr, status: r.status };
}

let run;
const result = () => (run ??= tsc([...GOOD, ...BAD]));
// the lines of a file marked BAD
const badLines = (file) => readFileSync(`${DIR}/${file}`, 'utf8').split('\n').flatMap((l, i) => (l.includes('// BAD') ? [i + 1] : []));

describe('the declarations under tsc --strict', () => {
  it.each(GOOD)('%s compiles', (file) => {
    expect(result().errors[file], result().out).toEqual([]);
  }, 120000);

  it.each(BAD)('%s: each line marked BAD is an error, and no other line', (file) => {
    expect(badLines(file).length).toBeGreaterThan(0);
    expect([...new Set(result().errors[file])], result().out).toEqual(badLines(file));
  }, 120000);

  it('the errors name the misspelt kernel, parameter, optimizer, test function, schedule and view', () => {
    const { out } = result();
    expect(out).toContain("'\"sofmax\"' is not assignable");
    expect(out).toContain("'temprature' does not exist");
    expect(out).toContain("'\"adamm\"' is not assignable to type 'OptimizerName'");
    expect(out).toContain("'\"rosenbrok\"' is not assignable to type 'TestFunctionName | undefined'");
    expect(out).toContain("'\"cosin\"' is not assignable to type 'Schedule | undefined'");
    expect(out).toContain("'\"normalizer\"' is not assignable to parameter of type 'ViewId'");
  }, 120000);

  it('every JS entry point of package.json "exports" has its declarations, also for moduleResolution node10 (typesVersions)', () => {
    const root = new URL('../../', import.meta.url);
    const typed = Object.entries(PKG.exports).filter(([key]) => key !== './package.json');
    for (const [key, e] of typed) {
      expect(e.types, key).toMatch(/\.d\.ts$/);
      const files = e.types.includes('*') ? readdirSync(new URL('wasm/views/', root), { withFileTypes: true }).filter((d) => d.isDirectory())
        .map((d) => e.types.replace('*', d.name)) : [e.types];
      for (const f of files) expect(existsSync(new URL(f, root)), `${key}: ${f}`).toBe(true);
      expect(PKG.files.some((f) => e.types.replace(/^\.\//, '').startsWith(f)), `${key}: ${e.types} is in "files"`).toBe(true);
    }
    expect(PKG.typesVersions['*']).toEqual(Object.fromEntries(typed.filter(([key]) => key !== '.').map(([key, e]) => [key.slice(2), [e.types.slice(2)]])));
  });

  it('the entry points resolve as an installed package under moduleResolution node10 and bundler', () => {
    // a project with the package in its node_modules (a link to this checkout)
    const app = mkdtempSync(join(tmpdir(), 'softscope-types-'));
    const files = ['subpaths.ts', 'embed.ts', 'jsx-preact.tsx'];
    try {
      mkdirSync(join(app, 'node_modules'));
      symlinkSync(ROOT, join(app, 'node_modules', 'softscope'), 'dir');
      symlinkSync(join(ROOT, 'node_modules', 'preact'), join(app, 'node_modules', 'preact'), 'dir');
      for (const f of files) copyFileSync(join(DIR, f), join(app, f));
      for (const resolution of ['node10', 'bundler']) {
        const r = tsc(files, { cwd: app, resolution });
        expect(r.out, resolution).toBe('');
        expect(r.status, resolution).toBe(0);
      }
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  }, 240000);

  it('the ViewId union is the list of views (views/index.js)', () => {
    const dts = readFileSync(new URL('../../wasm/views/index.d.ts', import.meta.url), 'utf8');
    const union = /export type ViewId = ([^;]+);/.exec(dts)[1].split('|').map((t) => t.trim().replace(/^'|'$/g, ''));
    expect(union).toEqual([...VIEW_IDS]);
  });
});
