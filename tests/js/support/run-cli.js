// The CLI as a user runs it (node wasm/cli/main.js ...), for the test files that
// check its output: resolves to { code, out, err }. stdin is written and
// closed (empty by default); env adds to the environment.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../../wasm/cli/main.js', import.meta.url));

export function runCli(args, stdin, env = {}) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--no-warnings', CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    let out = '', err = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { err += d; });
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, out, err }));
    p.stdin.end(stdin ?? '');
  });
}
