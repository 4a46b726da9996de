// softscope train language and softscope generate as a user runs them: the
// results file's shape (--json), --save then generate --load giving the same
// text for the same seed twice, `train` alone still the Experiments view,
// and exit 2 with one line for bad input: a truncated or hostile model
// file, a prompt with an unknown character, a text empty, not UTF-8 or too
// short, a bad flag.
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from './support/run-cli.js';

const TINY = ['--d', '32', '--heads', '2', '--layers', '1', '--context', '16', '--batch', '4', '--steps', '30', '--warmup', '5', '--length', '20', '--quantizers', '', '--impl', 'simd'];
let dir, model;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'ss-lang-')); model = join(dir, 'm.ssm'); });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const oneLine = (r) => {
  expect(r.code, r.err).toBe(2);
  expect(r.out).toBe('');
  expect(r.err.trimEnd().split('\n').length, r.err).toBe(1);
  expect(r.err).toMatch(/^softscope: /);
  return r.err;
};

describe('softscope train language', () => {
  it('--json: the results file; --save writes the selected run; generate --load gives the same text twice', async () => {
    const r = await runCli(['train', 'language', ...TINY, '--temperature', '0.8', '--sel', 'softpick', '--save', model, '--json']);
    expect(r.code, r.err).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.view).toBe('language');
    expect(j.state).toMatchObject({ d: '32', steps: '30', on: 'temperature', temperature: '0.8', sel: 'softpick' });
    expect(j.data.phase).toBe('done');
    expect(j.data.runs.map((x) => x.name)).toEqual(['softmax', 'softpick']);
    for (const x of j.data.runs) {
      expect(x.valLoss).toBeGreaterThan(0);
      expect(x.curve.step.length).toBeGreaterThan(0);
      expect(x.inspect.heads.length).toBe(2);
      expect(x.generation.text.length).toBeGreaterThan(0);
    }
    expect(readFileSync(model).subarray(0, 4).toString()).toBe('SSLM');
    const g = ['generate', '--load', model, '--prompt', 'The ', '--length', '30', '--temperature', '0.8', '--top_p', '0.9', '--seed', '1', '--impl', 'simd'];
    const [a, b, c] = await Promise.all([runCli(g), runCli(g), runCli([...g, '--json'])]);
    expect(a.code, a.err).toBe(0);
    expect(a.out).toBe(b.out);
    expect(a.out.startsWith('The ')).toBe(true);
    const gj = JSON.parse(c.out);
    expect(a.out).toBe(`${gj.prompt}${gj.text}\n`);
    expect(gj.steps.length).toBe(30);
    expect(Object.keys(gj.steps[0].top[0].stages)).toEqual(['temperature', 'top_p']);
  }, 60000);

  it('the default text table and --csv', async () => {
    const [t, c] = await Promise.all([runCli(['train', 'language', ...TINY, '--normalizers', 'softmax']), runCli(['train', 'language', ...TINY, '--normalizers', 'softmax', '--csv'])]);
    expect(t.code, t.err).toBe(0);
    expect(t.out).toMatch(/normalizer\s+steps\s+train loss\s+val loss\s+val bits\s+tokens\/s\s+sink heads/);
    expect(c.out.split('\n')[0]).toBe('kind,normalizer,step,seconds,n,position,quantizer,bits,layer,head,loss,bosMass,bosMassTrigger,bosMassOther,sink');
  }, 60000);

  it('exit 2 with one line for bad input', async () => {
    const bytes = readFileSync(model);
    writeFileSync(join(dir, 'trunc.ssm'), bytes.subarray(0, bytes.length - 7));
    const hostile = Buffer.concat([Buffer.from('SSLM'), Buffer.from([1, 0, 0, 0]), Buffer.from([20, 0, 0, 0]), Buffer.from('{"format":"\u001b[31m"}  ')]);
    writeFileSync(join(dir, 'hostile.ssm'), hostile);
    const nan = Buffer.from(bytes); nan.writeFloatLE(NaN, nan.length - 4);
    writeFileSync(join(dir, 'nan.ssm'), nan);
    writeFileSync(join(dir, 'empty.txt'), '');
    writeFileSync(join(dir, 'bad.txt'), Buffer.from([0xff, 0xfe, 0x41]));
    writeFileSync(join(dir, 'short.txt'), 'abc');
    const cases = [
      [['generate', '--load', join(dir, 'trunc.ssm')], /--load .*trunc\.ssm: .*parameters/],
      [['generate', '--load', join(dir, 'hostile.ssm')], /--load .*hostile\.ssm: /],
      [['generate', '--load', join(dir, 'nan.ssm')], /--load .*nan\.ssm: .*not finite/],
      [['generate', '--load', join(dir, 'none.ssm')], /cannot read it/],
      [['generate'], /--load FILE is required/],
      [['generate', '--load', model, '--prompt', 'The é€'], /^softscope: --prompt: holds "é" \(character 4\)/],
      [['generate', '--load', model, '--top_p', '7'], /--top_p/],
      [['generate', '--load', model, '--bogus', '1'], /unknown option --bogus for generate/],
      [['generate', '--load', model, '--length', '0'], /--length 0/],
      [['train', 'language', '--corpus', 'text', '--text', join(dir, 'empty.txt')], /the file is empty/],
      [['train', 'language', '--corpus', 'text', '--text', join(dir, 'bad.txt')], /not UTF-8/],
      [['train', 'language', '--corpus', 'text', '--text', join(dir, 'short.txt')], /--text .*short\.txt: .*3 tokens/],
      [['train', 'language', '--corpus', 'text'], /needs --text FILE/],
      [['train', 'language', '--context', '3'], /^softscope: --context 3: /],
      [['train', 'language', '--top_q', '1'], /unknown option --top_q for train language/],
      [['train', '--corpus', 'grammar'], /unknown option --corpus for train/],
      [['train', 'nope'], /unknown view "nope"/],
    ];
    const rs = await Promise.all(cases.map(([args]) => runCli([...args, '--impl', 'simd'])));
    rs.forEach((r, i) => expect(oneLine(r), cases[i][0].join(' ')).toMatch(cases[i][1]));
    expect(rs[1].err).not.toContain('\u001b');
  }, 60000);

  it('help lists generate and train language', async () => {
    const [h, t] = await Promise.all([runCli(['--help']), runCli(['train', '--help'])]);
    expect(h.out).toMatch(/generate\s+generate text from a saved language model/);
    expect(t.out).toContain('softscope train language');
    expect(t.out).toContain('--text FILE');
  });
});
