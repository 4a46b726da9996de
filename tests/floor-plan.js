#!/usr/bin/env node
// The floor plan of the code, read off the sources and the built objects;
// part of tests/build-checks.sh. Prints "ok   ..." / "FAIL ..." lines.
//
// core/ (C): a file depends on another when it includes it or uses a
// global symbol the other defines (the symbols come from `nm` over the
// native objects, OBJDIR/core/src/**.o, so a call through a header's
// static inline counts as the include it is).
//  - no two files depend on each other, directly or through others;
//  - the lower folders (common/, registry/) depend on no family folder,
//    save through the registry's lists: registry/ may name the entries of
//    registry/kernel_list.h (ss_kernel_<name>, the descriptors) and of
//    registry/json_sections.h (ss_json_<name>, a family's part of the JSON);
//  - no family includes another family's headers.
// wasm/ and web/src (JS): relative imports (and web's 'softscope/...')
//  - form no cycle;
//  - wasm/api imports nothing above it;
//  - web imports the package only through its public entry points.
//
// Usage: node tests/floor-plan.js OBJDIR     (OBJDIR: build/obj/asan)
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';

const objDir = process.argv[2] ?? 'build/obj/asan';
const LOWER = ['common', 'registry'];
let fails = 0;
const ok = (m) => console.log(`ok   ${m}`);
const bad = (m) => { fails++; console.log(`FAIL ${m}`); };

const walk = (dir, keep) => readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
  const p = path.join(dir, e.name);
  return e.isDirectory() ? walk(p, keep) : keep(p) ? [p] : [];
});

// Tarjan's strongly connected components; returns those of more than one node.
function cycles(graph) {
  let index = 0;
  const idx = new Map(), low = new Map(), stack = [], on = new Set(), out = [];
  const visit = (v) => {
    idx.set(v, index); low.set(v, index++); stack.push(v); on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); }
      else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do { w = stack.pop(); on.delete(w); scc.push(w); } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

const addEdge = (g, a, b, why, whyMap) => {
  if (a === b) return;
  if (!g.has(a)) g.set(a, new Set());
  g.get(a).add(b);
  whyMap.set(`${a} -> ${b}`, why);
};

// ---- core -----------------------------------------------------------------
const SRC = 'core/src';
const files = walk(SRC, (p) => /\.[ch]$/.test(p)).map((p) => path.relative(SRC, p));
const folder = (f) => f.split('/')[0];
const cg = new Map(), cwhy = new Map();
for (const f of files) {
  cg.set(f, cg.get(f) ?? new Set());
  for (const m of readFileSync(path.join(SRC, f), 'utf8').matchAll(/^#include "([^"]+)"/gm)) {
    if (files.includes(m[1])) addEdge(cg, f, m[1], 'includes', cwhy);
  }
}
const objects = existsSync(path.join(objDir, SRC)) ? walk(path.join(objDir, SRC), (p) => p.endsWith('.o')) : [];
if (objects.length) ok(`${objects.length} objects under ${objDir}/${SRC}`);
else bad(`no objects under ${objDir}/${SRC} (build the native tests first)`);
const defines = new Map(), uses = new Map();
for (const o of objects) {
  const src = path.relative(path.join(objDir, SRC), o).replace(/\.o$/, '.c');
  const u = new Set();
  for (const line of execFileSync('nm', [o], { encoding: 'utf8' }).split('\n')) {
    const m = /^(?:[0-9a-f]+)?\s+([A-Za-z])\s+(\S+)$/.exec(line);
    if (!m) continue;
    if (m[1] === 'U') u.add(m[2]);
    else if (/[TDRBVW]/.test(m[1])) defines.set(m[2], src);
  }
  uses.set(src, u);
}
// The entries of the registry's lists, read off the list headers.
const listed = new Set();
for (const [list, macro, prefix] of [['kernel_list.h', 'SS_KERNEL', 'ss_kernel_'], ['json_sections.h', 'SS_JSON_SECTION', 'ss_json_']]) {
  for (const m of readFileSync(path.join(SRC, 'registry', list), 'utf8').matchAll(new RegExp(`^${macro}\\((\\w+)\\)`, 'gm'))) listed.add(prefix + m[1]);
}
if (listed.size > 0) ok(`core: the registry's lists name ${listed.size} entries`);
else bad('core: no entry found in registry/kernel_list.h and registry/json_sections.h');
const descriptor = (sym, from) => listed.has(sym) && folder(from) === 'registry';
for (const [f, u] of uses) {
  for (const sym of u) {
    const def = defines.get(sym);
    if (def) addEdge(cg, f, def, `uses ${sym}`, cwhy);
  }
}

const ccycles = cycles(cg);
if (ccycles.length === 0) ok(`core: no circle among ${files.length} files (includes and symbols)`);
for (const c of ccycles) bad(`core: a circle: ${c.join(', ')} (${[...cwhy].filter(([k]) => c.includes(k.split(' -> ')[0]) && c.includes(k.split(' -> ')[1])).map(([k, w]) => `${k} ${w}`).join('; ')})`);

let upward = 0, descriptors = 0;
for (const [a, targets] of cg) {
  if (!LOWER.includes(folder(a))) continue;
  for (const b of targets) {
    if (LOWER.includes(folder(b)) || !files.includes(b)) continue;
    const syms = [...uses.get(a) ?? []].filter((s) => defines.get(s) === b);
    if (syms.length && syms.every((s) => descriptor(s, a))) { descriptors++; continue; }
    upward++;
    bad(`core: ${a} (a lower folder) depends on ${b}: ${cwhy.get(`${a} -> ${b}`)}`);
  }
}
if (upward === 0) ok(`core: common/ and registry/ depend on no family folder (their lists name entries in ${descriptors} files)`);

let crossing = 0;
for (const [a, targets] of cg) {
  if (LOWER.includes(folder(a))) continue;
  for (const b of targets) {
    if (cwhy.get(`${a} -> ${b}`) !== 'includes' || LOWER.includes(folder(b)) || folder(a) === folder(b)) continue;
    crossing++;
    bad(`core: ${a} includes another family's header ${b}`);
  }
}
if (crossing === 0) ok('core: no family includes another family\'s headers');

// ---- JS -------------------------------------------------------------------
const jsFiles = [...walk('wasm', (p) => /\.(m?js|jsx)$/.test(p) && !p.includes('/dist/')),
  ...walk('web/src', (p) => /\.(m?js|jsx)$/.test(p))];
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const publicEntry = (spec) => {
  const sub = spec === 'softscope' ? '.' : `./${spec.slice('softscope/'.length)}`;
  if (pkg.exports[sub]) return pkg.exports[sub].default ?? pkg.exports[sub];
  for (const [k, v] of Object.entries(pkg.exports)) {
    if (!k.includes('*')) continue;
    const [pre, post] = k.split('*');
    if (sub.startsWith(pre) && sub.endsWith(post)) {
      return (v.default ?? v).replace('*', sub.slice(pre.length, sub.length - post.length));
    }
  }
  return null;
};
const jg = new Map(), jwhy = new Map();
let apiUp = 0, webDeep = 0, unknown = 0;
for (const f of jsFiles) {
  jg.set(f, jg.get(f) ?? new Set());
  const text = readFileSync(f, 'utf8');
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"`;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)) {
    const spec = m[1] ?? m[2];
    let target = null;
    if (spec.startsWith('.')) target = path.normalize(path.join(path.dirname(f), spec));
    else if (spec === 'softscope' || spec.startsWith('softscope/')) {
      const e = publicEntry(spec);
      if (!e) { unknown++; bad(`js: ${f} imports ${spec}, not an entry of package.json's exports`); continue; }
      target = path.normalize(e);
    } else continue;
    if (f.startsWith('web/') && target.startsWith('wasm/') && spec.startsWith('.')) {
      webDeep++;
      bad(`js: ${f} reaches into the package by a relative path (${spec}); import 'softscope/...'`);
    }
    if (f.startsWith('wasm/api/') && !target.startsWith('wasm/api/') && !target.startsWith('wasm/dist/')) {
      apiUp++;
      bad(`js: ${f} (wasm/api, the ground floor) imports ${spec}`);
    }
    if (jsFiles.includes(target)) addEdge(jg, f, target, `imports ${spec}`, jwhy);
  }
}
const jcycles = cycles(jg);
if (jcycles.length === 0) ok(`js: no import circle among ${jsFiles.length} modules of wasm/ and web/src`);
for (const c of jcycles) bad(`js: an import circle: ${c.join(', ')}`);
if (apiUp === 0) ok('js: wasm/api imports nothing above it');
if (webDeep === 0 && unknown === 0) ok("js: web/src imports the package only through 'softscope/...' entry points");

process.exit(fails ? 1 : 0);
