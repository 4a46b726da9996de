// The CLI as a user runs it (node wasm/cli/main.js ...), for the test files that
// check its output: resolves to { code, out, err }. stdin is written and
// closed (empty by default); env adds to the environment.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../../wasm/cli/main.js', import.meta.url));

export function runCli(args, stdin, env = {}, nodeFlagFirst = false) {
  return new Promise((resolve, reject) => {
    const argv = nodeFlagFirst ? [args[0], '--no-warnings', CLI, ...args.slice(1)] : ['--no-warnings', CLI, ...args];
    const p = spawn(process.execPath, argv, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let out = '', err = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { err += d; });
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, out, err }));
    p.stdin.end(stdin ?? '');
  });
}

/** runCli in a process whose JS heap may grow to `mb` megabytes (a run that
 *  needs more dies: a non-zero code). */
export function runCliWithHeap(args, mb, stdin) {
  return runCli([`--max-old-space-size=${mb}`, ...args], stdin, {}, true);
}
