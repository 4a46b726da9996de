// Runs one build of the C benchmark harness (bench.c) and collects its JSON
// lines by type: meta, time, accuracy, skip, error, and any other record type
// (e.g. "iterations") under `other`. A missing binary or a non-zero exit is
// pushed to `failures`; the run goes on.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

export function runBenchBinary({ root, label, file, cmd, args, failures, log }) {
  if (!existsSync(file)) {
    failures.push(`${label}: ${path.relative(root, file)} is missing (build it: make bench, or make B=... ${path.relative(root, file)})`);
    log(`${label}: MISSING ${file}`);
    return null;
  }
  const t0 = Date.now();
  log(`${label}: running ${path.relative(root, file)} ...`);
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  const secs = ((Date.now() - t0) / 1000).toFixed(1);
  const out = { label, meta: null, times: [], accuracy: [], skips: [], errors: [], other: {}, seconds: +secs };
  for (const line of (r.stdout || '').split('\n')) {
    if (!line.startsWith('{')) continue;
    let rec;
    try { rec = JSON.parse(line); } catch { out.errors.push({ message: `unparsable line: ${line}` }); continue; }
    if (rec.type === 'meta') out.meta = rec;
    else if (rec.type === 'time') out.times.push(rec);
    else if (rec.type === 'accuracy') out.accuracy.push(rec);
    else if (rec.type === 'skip') out.skips.push(rec);
    else if (rec.type === 'error') out.errors.push(rec);
    else (out.other[rec.type] ??= []).push(rec);
  }
  if (r.stderr) process.stderr.write(r.stderr);
  if (r.error || r.status !== 0 || r.signal) {
    const why = r.error ? r.error.message : r.signal ? `killed by ${r.signal}` : `exit status ${r.status}`;
    failures.push(`${label}: ${why}${out.errors.length ? ' — ' + out.errors.map((e) => e.message).join('; ') : ''}`);
    log(`${label}: FAILED (${why}) after ${secs} s`);
  } else {
    log(`${label}: ${out.times.length} timings in ${secs} s`);
  }
  return out;
}

