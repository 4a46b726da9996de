#!/usr/bin/env node
// softscope — the command line. One file per command (list.js, normalize.js,
// figure.js, check.js, ...), each with its own options and help; shared
// parsing and output in shared.js. Exit status: 0 ok (check: every check
// passed), 2 bad input or usage (one line on stderr, naming the argument),
// 1 internal error or a failed check.
import { realpathSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createSoftscope } from '../api/index.js';
import REGISTRY from '../dist/registry.js';
import { UsageError, DefectError, parseArgs, cliMessage, escapeControls } from './shared.js';
import { command as list } from './list.js';
import { command as describe } from './describe.js';
import { command as normalize } from './normalize.js';
import { command as measure } from './measure.js';
import { command as loss } from './loss.js';
import { command as sample } from './sample.js';
import { command as quantize } from './quantize.js';
import { command as attend } from './attend.js';
import { command as optimize } from './optimize.js';
import { command as sweep } from './sweep.js';
import { command as figure } from './figure.js';
import { command as train } from './train.js';
import { command as generate } from './generate.js';
import { command as check } from './check.js';

const COMMANDS = [list, describe, normalize, measure, loss, sample, quantize, attend, optimize, sweep, train, generate, figure, check];
const VERSION = REGISTRY.version; // SS_VERSION, through the registry JSON
const IMPLS = ['auto', 'relaxed', 'simd', 'scalar'];

const OVERVIEW = `softscope — numeric kernels around softmax (WebAssembly SIMD128)

usage: softscope <command> [arguments] [--json]
${COMMANDS.map((c) => `  ${c.name.padEnd(10)} ${c.summary}`).join('\n')}

softscope <command> --help   that command's options
softscope --version

common options: --impl auto|relaxed|simd|scalar (the wasm build; auto: relaxed SIMD, else SIMD, where the engine has it), --json
exit status: 0 ok, 2 bad input or usage, 1 internal error or a failed check
environment: SOFTSCOPE_WASM=path (another build of the module), SOFTSCOPE_DEBUG=1 (stacks of internal errors)`;

async function helpOf(c, load) {
  const text = typeof c.help === 'function' ? c.help(await load()) : c.help;
  return `usage: ${c.usage}\n\n${c.summary}\n\n${text}`;
}

/**
 * One command line: returns the exit status. io.out / io.err take one line
 * each (default: the process's stdout / stderr); io.softscope(impl), when
 * given, supplies the instance (or a promise of it) instead of loading one.
 */
export async function main(argv, io = {}) {
  const out = io.out ?? ((s) => process.stdout.write(s + '\n'));
  const write = io.err ?? ((s) => process.stderr.write(s + '\n'));
  // Messages quote what the user typed (a kernel name, a --state value): its
  // control characters are shown escaped, never sent to the terminal.
  // A message is one line: a newline in it is shown as \x0a too.
  const err = (s) => write(escapeControls(s));
  let ssPromise = null;
  const load = (impl = 'auto') => {
    if (!IMPLS.includes(impl)) throw new UsageError(`--impl must be auto, relaxed, simd or scalar (got "${impl}")`);
    // SOFTSCOPE_WASM: run another build of the module (a path or URL).
    ssPromise ??= io.softscope ? Promise.resolve(io.softscope(impl))
      : createSoftscope(process.env.SOFTSCOPE_WASM ? { impl, wasm: process.env.SOFTSCOPE_WASM } : { impl });
    return ssPromise;
  };
  const ctx = {
    out, err, load,
    async write(file, content, flag) {
      try {
        await writeFile(file, content);
      } catch (e) {
        throw new UsageError(`${flag}: cannot write ${file} (${e.code ?? e.message})`);
      }
    },
  };
  const [first, ...rest] = argv;
  let name = first;
  try {
    if (first === undefined) throw new UsageError('no command (softscope --help lists them)');
    if (first === '--help' || first === '-h' || first === 'help') {
      const c = COMMANDS.find((x) => x.name === rest[0]);
      out(first === 'help' && c ? await helpOf(c, load) : OVERVIEW);
      return 0;
    }
    if (first === '--version') { out(VERSION); return 0; }
    const c = COMMANDS.find((x) => x.name === first);
    if (!c) throw new UsageError(`unknown command "${first}" (${COMMANDS.map((x) => x.name).join(', ')}; see softscope --help)`);
    const args = parseArgs(rest, c.options, c.name);
    if (args.opt.help) { out(await helpOf(c, load)); return 0; }
    const [lo, hi] = c.positional;
    if (args.pos.length < lo) throw new UsageError(`${c.name}: missing argument (usage: ${c.usage})`);
    if (args.pos.length > hi) throw new UsageError(`${c.name}: unexpected argument "${args.pos[hi]}"`);
    name = `${c.name}${args.pos[0] ? ` ${args.pos[0]}` : ''}`;
    const code = await c.run(ctx, args);
    return typeof code === 'number' ? code : 0;
  } catch (e) {
    if (e instanceof UsageError) { err(`softscope: ${e.message}`); return 2; }
    if (e instanceof DefectError) { err(`softscope: ${name}: ${e.message}`); return 1; }
    // Errors from the API carry the C status they stand for; NULL and BUFFER
    // would be bugs here, everything else is about the input.
    if (typeof e?.code === 'string' && e.code.startsWith('SS_ERR') && e.code !== 'SS_ERR_NULL' && e.code !== 'SS_ERR_BUFFER') {
      err(`softscope: ${name}: ${cliMessage(e)}`);
      return 2;
    }
    err(`softscope: internal error: ${e?.message ?? e}${process.env.SOFTSCOPE_DEBUG ? '' : ' (SOFTSCOPE_DEBUG=1 for the stack)'}`);
    if (process.env.SOFTSCOPE_DEBUG) write(String(e?.stack).split('\n').map(escapeControls).join('\n'));
    return 1;
  }
}

/** The CLI in-process (tests, scripts): { code, stdout, stderr } of one
 *  command line, as the process would print them, without touching the
 *  process's streams or exit code. options.softscope as for main. */
export async function runInProcess(argv, { softscope } = {}) {
  const out = [], err = [];
  const code = await main(argv, { out: (s) => out.push(s), err: (s) => err.push(s), softscope });
  const text = (lines) => lines.map((l) => `${l}\n`).join('');
  return { code, stdout: text(out), stderr: text(err) };
}

// Run when executed (also through the npm bin symlink), not when imported.
const self = fileURLToPath(import.meta.url);
let invoked = process.argv[1];
try { invoked = realpathSync(invoked); } catch { /* keep as is */ }
if (invoked === self) {
  // `softscope list | head`: a closed pipe ends the output, not in a stack trace.
  process.stdout.on('error', (e) => { if (e.code === 'EPIPE') process.exit(0); throw e; });
  process.exitCode = await main(process.argv.slice(2));
}
