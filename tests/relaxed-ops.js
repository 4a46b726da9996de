#!/usr/bin/env node
// Where the relaxed build uses relaxed-SIMD ops, read off the disassembly
// (wasm-objdump) and checked against the registry; part of
// tests/build-checks.sh. Prints "ok   ..." / "FAIL ..." lines.
//
//  - the linked module really holds relaxed ops (relaxed_madd, laneselect);
//  - where: every function with relaxed ops of its own, by source file;
//  - per kernel: its SIMD code reaches relaxed ops (through its calls, across
//    object files) exactly when its registry entry states a relaxed_simd
//    bound -- a kernel can neither use them silently nor claim them falsely;
//  - pinned code stays plain SIMD128: no function of the samplers and
//    quantizers (seeded draws, pinned hashes, rounding) and no scalar
//    reference reaches a relaxed op.
//
// The call graph comes from the relocatable objects of the relaxed build
// (build/obj/wasm-relaxed/core/src/**.o): there a static function is known
// by its object (two files may both have a static `temperature_simd`) and a
// call to another file names the global symbol.
//
// Usage: node --experimental-wasm-relaxed-simd tests/relaxed-ops.js MODULE OBJDIR
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';

v8.setFlagsFromString('--experimental-wasm-relaxed-simd');
const [modulePath, objDir] = process.argv.slice(2);
const RELAXED = /\b[if](?:8x16|16x8|32x4|64x2)\.relaxed_\w+/;
const PINNED_DIRS = ['sample', 'quant'];
let fails = 0;
const ok = (m) => console.log(`ok   ${m}`);
const bad = (m) => { fails++; console.log(`FAIL ${m}`); };
const objdump = (...a) => execFileSync('wasm-objdump', a, { encoding: 'utf8', maxBuffer: 256 << 20 });

// Functions of a disassembly: name -> { own relaxed ops, callee names, ops by kind }.
function functions(file) {
  const fns = new Map();
  let cur = null;
  for (const line of objdump('-d', file).split('\n')) {
    const f = / func\[\d+\] <(.+)>:$/.exec(line);
    if (f) {
      cur = { name: f[1], relaxed: 0, kinds: {}, calls: [] };
      fns.set(cur.name, cur);
      continue;
    }
    if (!cur) continue;
    const r = RELAXED.exec(line);
    if (r) {
      cur.relaxed++;
      cur.kinds[r[0]] = (cur.kinds[r[0]] ?? 0) + 1;
    }
    const c = / call \d+ <(.+)>/.exec(line);
    if (c) cur.calls.push(c[1]);
  }
  return fns;
}

// 1. The linked module.
const linked = functions(modulePath);
const total = {};
for (const f of linked.values()) for (const [k, v] of Object.entries(f.kinds)) total[k] = (total[k] ?? 0) + v;
const nTotal = Object.values(total).reduce((a, b) => a + b, 0);
if (nTotal > 0) ok(`${path.basename(modulePath)} holds ${nTotal} relaxed ops (${Object.entries(total).map(([k, v]) => `${k} ${v}`).join(', ')})`);
else bad(`${path.basename(modulePath)} holds no relaxed op`);

// 2. The objects: a global call graph, statics qualified by their object.
const objects = [];
(function walk(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name.endsWith('.o')) objects.push(p);
  }
})(path.join(objDir, 'core/src'));
objects.sort();
if (!objects.length) bad(`no relaxed-build objects under ${objDir}/core/src`);

const nodes = new Map(); // key -> { relaxed, callees: [key], obj, name }
const globalDef = new Map(); // global symbol -> key
const objInfo = [];
for (const o of objects) {
  const rel = path.relative(path.join(objDir, 'core/src'), o);
  const sym = objdump('-x', '-j', 'linking', o);
  const locals = new Set(), kernels = [];
  for (const m of sym.matchAll(/ F <([^>]+)> func=\d+ \[ (undefined )?binding=(\w+)/g))
    if (!m[2] && m[3] === 'local') locals.add(m[1]);
  for (const m of sym.matchAll(/ D <ss_kernel_(\w+)> segment=\d+ offset=\d+ size=\d+ \[ binding=global/g))
    kernels.push(m[1]);
  const fns = functions(o);
  const key = (name) => (locals.has(name) ? `${rel}:${name}` : name);
  for (const f of fns.values()) {
    if (f.name.startsWith('env.')) continue; // an import
    const k = key(f.name);
    nodes.set(k, { relaxed: f.relaxed, kinds: f.kinds, obj: rel, name: f.name,
      callees: f.calls.map((c) => (c.startsWith('env.') ? c.slice(4) : key(c))) });
    if (!locals.has(f.name)) globalDef.set(f.name, k);
  }
  objInfo.push({ rel, kernels, fnKeys: [...fns.values()].filter((f) => !f.name.startsWith('env.')).map((f) => key(f.name)) });
}
const reachMemo = new Map();
function reach(k, stack = new Set()) {
  if (reachMemo.has(k)) return reachMemo.get(k);
  const n = nodes.get(k);
  if (!n || stack.has(k)) return 0; // libc, or a cycle
  stack.add(k);
  let t = n.relaxed;
  for (const c of n.callees) t += reach(c, stack);
  stack.delete(k);
  reachMemo.set(k, t);
  return t;
}

// where
const where = new Map();
for (const n of nodes.values())
  if (n.relaxed) where.set(n.obj, [...(where.get(n.obj) ?? []), `${n.name} (${n.relaxed})`]);
for (const [obj, list] of where) ok(`relaxed ops in ${obj}: ${list.join(', ')}`);

// 3. The registry of the relaxed build.
const { createSoftscope } = await import(new URL('../wasm/api/index.js', import.meta.url).href);
const ss = await createSoftscope({ impl: 'simd', wasm: readFileSync(modulePath) });
const declared = new Map(ss.kernels().map((k) => [k.name, k.relaxed_simd ?? null]));
if (ss.impl === 'simd') ok(`the relaxed build loads with impl 'simd' (${declared.size} kernels)`);

let nRelaxed = 0, nPlain = 0;
for (const o of objInfo) {
  if (!o.kernels.length) continue;
  const entries = o.fnKeys.filter((k) => /_simd$/.test(nodes.get(k).name));
  const reached = entries.filter((k) => reach(k) > 0);
  for (const name of o.kernels) {
    if (!declared.has(name)) { bad(`${o.rel}: ss_kernel_${name} is not in the registry JSON`); continue; }
    const bound = declared.get(name);
    if (reached.length && !bound)
      bad(`${name} (${o.rel}): its SIMD code reaches relaxed ops (${reached.map((k) => nodes.get(k).name).join(', ')}) but its descriptor states no relaxed_simd bound`);
    else if (!reached.length && bound)
      bad(`${name} (${o.rel}) states a relaxed_simd bound but its SIMD code has no relaxed op`);
    else if (bound) { nRelaxed++; ok(`${name}: relaxed (${reached.map((k) => `${nodes.get(k).name} reaches ${reach(k)}`).join(', ')}); bound: ${bound}`); }
    else nPlain++;
  }
}
ok(`${nRelaxed} kernels use relaxed ops and state a bound; ${nPlain} run plain SIMD128 in the relaxed build`);

// 4. Pinned code and scalar references stay plain.
let pinnedFns = 0;
for (const o of objInfo) {
  const pinned = PINNED_DIRS.includes(o.rel.split(path.sep)[0]);
  for (const k of o.fnKeys) {
    const n = nodes.get(k);
    if (!pinned && !/_scalar$/.test(n.name)) continue;
    pinnedFns++;
    const r = reach(k);
    if (r) bad(`${n.name} (${o.rel}) reaches ${r} relaxed ops: ${pinned ? 'pinned bit for bit' : 'a scalar reference'}`);
  }
}
ok(`${pinnedFns} functions of ${PINNED_DIRS.map((d) => `core/src/${d}`).join(', ')} and the scalar references reach no relaxed op`);
process.exitCode = fails ? 1 : 0;
