#!/usr/bin/env node
// Runs one Vitest config and prints the harness's summary line
// ("suite NAME: P passed, F failed, S skipped") from Vitest's JSON report.
import { spawnSync } from 'node:child_process';
import { readFileSync, mkdirSync } from 'node:fs';

const [label, config] = process.argv.slice(2);
mkdirSync('build/logs', { recursive: true });
const report = `build/logs/vitest-${label}.json`;
const r = spawnSync('npx', ['vitest', 'run', '--config', config, '--reporter=dot', '--reporter=json', `--outputFile.json=${report}`],
  { stdio: ['ignore', 'inherit', 'inherit'] });
let p = 0, f = 0, s = 0;
try {
  const j = JSON.parse(readFileSync(report, 'utf8'));
  p = j.numPassedTests; f = j.numFailedTests; s = j.numPendingTests + (j.numTodoTests || 0);
  for (const file of j.testResults) {
    for (const t of file.assertionResults) {
      if (t.status !== 'failed') continue;
      console.log(`FAIL ${t.fullName}`);
      // the cause, uncoloured and short (the dot reporter's frame above can be cut from a CI log)
      const why = (t.failureMessages ?? []).join('\n').replace(/\x1b\[[0-9;]*m/g, '').split('\n').slice(0, 6);
      for (const line of why) console.log(`    ${line}`);
    }
    if (file.status === 'failed' && file.assertionResults.length === 0) { console.log(`FAIL ${file.name}: ${file.message}`); f++; }
  }
} catch (e) {
  console.log(`FAIL could not read ${report}: ${e.message}`);
  f = Math.max(f, 1);
}
console.log(`suite ${label}: ${p} passed, ${f} failed, ${s} skipped`);
process.exit(r.status === 0 && f === 0 ? 0 : 1);
