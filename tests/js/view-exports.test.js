// A view's numbers as files (wasm/views/data.js, files.js: the playground's
// CSV and JSON buttons and `softscope figure --data` write them): the JSON
// names the wasm build that computed the numbers (relaxed, simd, scalar),
// and the CSV writes each float32 at the shortest decimal that reads back as
// that float32 (0.913, not 0.9129999876022339), counts whole, other doubles
// in full; the CLI's files are byte for byte the package's.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSoftscope } from 'softscope';
import { renderFigure, csv } from '../../wasm/views/files.js';
import { f32 } from '../../wasm/views/data.js';
import { runCli } from './support/run-cli.js';

let dir;
const builds = {};
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'softscope-exports-'));
  for (const b of ['relaxed', 'simd', 'scalar']) builds[b] = await createSoftscope({ impl: b });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LINK = 'kernels=softmax,sparsemax&logits=2,1,0.1,-1,0.37&temperature=0.7';

describe('exported files', () => {
  it('the JSON names the build that computed the numbers', () => {
    for (const [b, ss] of Object.entries(builds)) {
      const j = JSON.parse(renderFigure(ss, 'normalizers', LINK).json);
      expect(Object.keys(j)).toEqual(['view', 'state', 'build', 'data']);
      expect(j.build).toBe(b);
    }
    // the relaxed build runs the SIMD kernels (ss.impl), and says relaxed
    expect(builds.relaxed.impl).toBe('simd');
  });

  it('the CSV writes a float32 at its shortest round-trip decimal, a count whole, a double in full', () => {
    const r = renderFigure(builds.scalar, 'normalizers', LINK);
    const rows = r.csv.trim().split('\n').slice(1).map((l) => l.split(','));
    const y = r.data.series.flatMap((s) => s.y);
    expect(rows.map((c) => c[3])).toHaveLength(y.length);
    rows.forEach((c, i) => {
      const text = c[3], v = y[i];
      expect(Math.fround(Number(text)), `${text} reads back as ${v}`).toBe(v);
      // the nearest decimal one digit shorter reads back as another float32
      const digits = text.replace(/e.*$/, '').replace(/[-.]/g, '').replace(/^0+/, '').length;
      if (digits > 1) expect(Math.fround(Number(v.toPrecision(digits - 1))), text).not.toBe(v);
      expect(digits, text).toBeLessThanOrEqual(9); // 9 significant digits tell any two float32 apart
    });
    // a float32 written short, a double that is no float32 (0.1) as JavaScript writes it, a count whole
    const v = { table: () => ({ columns: ['a', 'b', 'c'], rows: [[Math.fround(0.913), 0.1, 12]] }) };
    expect(csv(v, null)).toBe('a,b,c\n0.913,0.1,12\n');
    expect(String(Math.fround(0.913))).toBe('0.9129999876022339');
    expect(f32(2 ** 30)).not.toBe(2 ** 30); // why counts are written whole: 1073741800 reads back as 2^30
    expect(csv({ table: () => ({ columns: ['n'], rows: [[2 ** 30], [NaN], [-Infinity]] }) }, null)).toBe('n\n1073741824\nNaN\n-Infinity\n');
  });

  it('softscope figure --data writes the same CSV and JSON as the package, naming its build', async () => {
    for (const ext of ['csv', 'json']) {
      const file = join(dir, `o.${ext}`);
      const r = await runCli(['figure', 'optimizers', '--state', 'kernels=sgd,adam&steps=40&sgd.lr=0.002', '--impl', 'scalar', '--data', file]);
      expect(r.code, r.err).toBe(0);
      const want = renderFigure(builds.scalar, 'optimizers', 'kernels=sgd,adam&steps=40&sgd.lr=0.002');
      expect(readFileSync(file, 'utf8')).toBe(want[ext]);
    }
    expect(JSON.parse(readFileSync(join(dir, 'o.json'), 'utf8')).build).toBe('scalar');
  });
});
