#!/usr/bin/env node
// Runs a standalone wasm program (a C test or bench binary built by emcc with
// -sSTANDALONE_WASM) under node:wasi, passing the remaining arguments and
// exiting with the program's status.
import { readFile } from 'node:fs/promises';
import { WASI } from 'node:wasi';

const [file, ...args] = process.argv.slice(2);
if (!file) {
  console.error('usage: run-wasi.js program.wasm [args...]');
  process.exit(2);
}
const wasi = new WASI({ version: 'preview1', args: [file, ...args], env: {}, returnOnExit: true });
const module = await WebAssembly.compile(await readFile(file));
// emcc's standalone runtime tells the host when memory grows; nothing to do.
const imports = { ...wasi.getImportObject(), env: { emscripten_notify_memory_growth() {} } };
const instance = await WebAssembly.instantiate(module, imports);
process.exitCode = wasi.start(instance);
