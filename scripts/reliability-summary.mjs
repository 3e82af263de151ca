// Prints the figures of the reliability and security suites (test/reliability/, written to
// test-results/reliability/<suite>.<database>.json) as one table.
//   node scripts/reliability-summary.mjs [--database postgres|embedded] [--clean]
// --clean removes earlier figures (run it before the suites). Exit code 1 when a figure
// that must be zero is not, or when no figures exist.
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const dir = join(process.cwd(), 'test-results', 'reliability');
const args = process.argv.slice(2);
if (args.includes('--clean')) {
  if (existsSync(dir)) for (const file of readdirSync(dir)) if (file.endsWith('.json')) rmSync(join(dir, file));
  process.exit(0);
}
const wanted = args.includes('--database') ? args[args.indexOf('--database') + 1] : undefined;

const files = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
const suites = files
  .map((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')))
  .filter((s) => !wanted || s.database === wanted)
  .sort((a, b) => a.suite.localeCompare(b.suite) || a.database.localeCompare(b.database));
if (suites.length === 0) {
  console.error(`No reliability figures in ${dir}${wanted ? ` for ${wanted}` : ''}: run the suites first (npm run test:reliability).`);
  process.exit(1);
}

const n = (value) => (typeof value === 'number' ? value.toLocaleString('en-US') : String(value ?? '-'));
const rows = []; // [suite, check, figure, result]
let bad = 0;
const zero = (value) => {
  if (value !== 0) bad++;
  return value === 0 ? 'ok' : 'FAIL';
};

for (const s of suites) {
  const f = s.figures;
  const tag = `${s.suite} (${s.database}${s.full ? ', full' : ''})`;
  if (s.suite === 'fuzz') {
    const t = f.services['todo-api'];
    const b = f.services['feedback-export'];
    rows.push([tag, 'requests fuzzed: todo-api + feedback-export', `${n(t.requests)} + ${n(b.requests)} = ${n(f.requestsTotal)}`, s.full && f.requestsTotal < 20000 ? (bad++, 'FAIL (< 20,000)') : 'ok']);
    rows.push([tag, 'operations covered', `${n(t.operations)} + ${n(b.operations)}`, '']);
    if (t.hostileBodies !== undefined) rows.push([tag, 'hostile bodies among them (deep to 100,000 levels, gzip, bombs, huge numbers)', n(t.hostileBodies + b.hostileBodies), '']);
    rows.push([tag, 'responses >= 500', n(t.status5xx + b.status5xx), zero(t.status5xx + b.status5xx)]);
    rows.push([tag, 'responses outside the envelope', n(t.envelopeViolations + b.envelopeViolations), zero(t.envelopeViolations + b.envelopeViolations)]);
    rows.push([tag, '2xx not matching the documented schema', `${n(t.schemaViolations + b.schemaViolations)} of ${n(t.schemaChecked2xx + b.schemaChecked2xx)} checked`, zero(t.schemaViolations + b.schemaViolations)]);
    rows.push([tag, 'transport errors (timeouts, resets)', n(t.transportErrors + b.transportErrors), zero(t.transportErrors + b.transportErrors)]);
    if (f.secretScan?.dumpMethod) {
      const k = f.secretScan;
      rows.push([tag, `secrets used or created by fuzzing: ${k.dumpMethod} (${n(k.dumpRows)} rows) and ${n(k.logLines)} log lines`, `${n(k.secretsChecked)} secrets, ${n(k.secretsInDump + k.secretsInLogs)} found`, zero(k.secretsInDump + k.secretsInLogs)]);
    }
    if (t.pathological !== undefined) {
      const slowest = Math.max(t.slowestPathologicalMs, b.slowestPathologicalMs);
      rows.push([tag, 'patterns audited: pattern-validated fields (from the code) / pathological strings of the largest body sent', `${n(f.patternsAudited)} / ${n(t.pathological + b.pathological)}`, f.patternsAudited > 0 ? 'ok' : (bad++, 'FAIL (none found)')]);
      rows.push([tag, 'slowest pathological answer (limit 1 s) / answers over 1 s', `${n(slowest)} ms / ${n(t.pathologicalOver1s + b.pathologicalOver1s)}`, zero(t.pathologicalOver1s + b.pathologicalOver1s)]);
    }
    if (f.openDefects) rows.push([tag, 'open defects: past 5xx in feature code, replayed by it.failing', n(f.openDefects), 'reported']);
    rows.push([tag, 'answers 2xx / 4xx / 429', `${n(t.status2xx + b.status2xx)} / ${n(t.status4xx + b.status4xx)} / ${n(t.status429 + b.status429)}`, '']);
  } else if (s.suite === 'authorization') {
    rows.push([tag, 'matrix cells (route x credential)', n(f.cells), '']);
    rows.push([tag, 'cells not as documented', n(f.mismatches), zero(f.mismatches)]);
    rows.push([tag, `cross-account reads / writes (${n(f.fingerprintTables)} tables fingerprinted per cell)`, `${n(f.crossAccountReads)} / ${n(f.crossAccountWrites)}`, zero(f.crossAccountReads + f.crossAccountWrites)]);
    rows.push([tag, 'mass-assignment cases / accepted', `${n(f.massAssignmentCases)} / ${n(f.massAssignmentMismatches)}`, zero(f.massAssignmentMismatches)]);
    rows.push([tag, `secrets at rest: ${f.dumpMethod} of ${n(f.dumpTables)} tables, ${n(f.dumpRows)} rows`, `${n(f.dumpBytes)} bytes, ${n(f.secretsChecked)} secrets, ${n(f.secretsInDump)} found`, zero(f.secretsInDump)]);
    rows.push([tag, 'secrets in captured logs', `${n(f.logLines)} lines, ${n(f.secretsInLogs)} found`, zero(f.secretsInLogs)]);
  } else if (s.suite === 'mail-abuse') {
    const over = f.mailSentToRecipient > f.recipientDailyBudget;
    if (over) bad++;
    rows.push([tag, `mail sent per recipient under abuse (${n(f.accounts)} accounts, ${n(f.batches)} batches, ${n(f.submits)} submits to one address)`, `${n(f.mailSentToRecipient)} (budget ${n(f.recipientDailyBudget)}/day)`, over ? 'FAIL' : 'ok']);
    rows.push([tag, 'submits answered 200 (a skipped mail is never an error)', `${n(f.submitsAnswered200)} of ${n(f.submits)}`, f.submitsAnswered200 === f.submits ? 'ok' : (bad++, 'FAIL')]);
  } else if (s.suite === 'oauth-abuse') {
    const sent = f['OAuth abuse cases sent'];
    const refused = f['OAuth abuse cases refused'];
    rows.push([tag, 'OAuth abuse cases refused (redirector, registration, stored size, private fetches, budget)', `${n(refused)} of ${n(sent)}`, zero(sent - refused)]);
    rows.push([tag, 'largest interaction row an unauthenticated authorize stores', `${n(f['largest interaction row an unauthenticated request stores (bytes)'])} bytes`, '']);
  } else if (s.suite === 'patterns') {
    rows.push([tag, 'patterns audited: DTO fields + MCP tool arguments with a pattern or format', `${n(f.restPatternFields)} + ${n(f.mcpPatternFields)} = ${n(f.patternsAudited)}`, '']);
    rows.push([tag, 'pathological strings refused in process / over HTTP', `${n(f.pathologicalChecksInProcess)} / ${n(f.pathologicalChecksHttp)}`, '']);
    const slowest = Math.max(f.slowestPathologicalMsInProcess, f.slowestPathologicalMsHttp);
    rows.push([tag, `slowest pathological answer (limit 100 ms)${f.slowestPathologicalCase ? `: ${f.slowestPathologicalCase}` : ''}`, `${n(slowest)} ms`, slowest < 100 ? 'ok' : (bad++, 'FAIL')]);
    if (f.widgetPageUrl78KiBMs >= 0) rows.push([tag, 'widget pageUrl "http://" + "a"×80,000 + " " refused in (issue 27: 10.9 s)', `${n(f.widgetPageUrl78KiBMs)} ms`, '']);
  } else if (s.suite === 'shutdown-freeze') {
    const within = f.shutdownUnderFreezeMs <= f.shutdownBoundMs;
    if (!within) bad++;
    rows.push([tag, `SIGTERM to exit, database frozen (limit grace ${n(f.graceMs)} ms + 2 s; issue 33: 30.5 s)`, `${n(f.shutdownUnderFreezeMs)} ms`, within ? 'ok' : 'FAIL']);
    rows.push([tag, 'close steps abandoned at their deadline (one warning each)', n(f.abandonedCloseSteps), '']);
  } else if (s.suite === 'replica-kill') {
    const granted = f.streamGrantedAfterKillMs;
    if (s.database.startsWith('embedded')) {
      // The process owns its database: the figure is its restart; the first stream after it must be granted.
      rows.push([tag, 'account at its 10-stream cap, the owning process killed (-9) and restarted: stream granted after (restart included) / refused after the restart', `${granted === null ? 'never' : `${n(granted)} ms`} / ${n(f.refusalsAfterRestart)}`, zero(f.refusalsAfterRestart)]);
    } else {
      const within = typeof granted === 'number' && granted <= f.streamGrantBoundMs;
      if (!within) bad++;
      rows.push([tag, `account at its 10-stream cap, kill -9 of the replica holding them: stream granted on another after (limit ${n(f.streamGrantBoundMs)} ms; issue 33: ~45 s)`, granted === null ? 'never' : `${n(granted)} ms`, within ? 'ok' : 'FAIL']);
    }
    if (f.liveReplicaLeasesKeptThroughFreezeMs !== undefined) rows.push([tag, 'live replica kept its leases through a database freeze (a renewal failing inside it)', `${n(f.liveReplicaLeasesKeptThroughFreezeMs)} ms`, 'ok']);
  } else if (s.suite === 'replica-kill-webhooks') {
    rows.push([tag, `webhook backlog of ${n(f.backlog)}, kill -9 of the delivering replica after ${n(f.receivedBeforeKill)}: all delivered after (lease ${n(f.leaseMs)} ms) / duplicates / rows reclaimed after the lease`, `${n(f.drainedAfterKillMs)} ms / ${n(f.duplicates)} / ${n(f.reclaimedAfterLease)}`, 'ok']);
  } else if (s.suite === 'database-breaker') {
    const slowest = Math.max(f.after503Sequential?.maxMs ?? Infinity, f.after503Burst20?.maxMs ?? Infinity);
    const sse = f.sseRecoveryAfterWritesMs ?? Infinity;
    rows.push([tag, 'database frozen: time to the first 503 (limit 3 s)', `${n(f.timeToFirst503Ms)} ms`, f.timeToFirst503Ms <= 3000 ? 'ok' : (bad++, 'FAIL')]);
    rows.push([tag, 'database known down: 503 latency, one at a time p50 / max (limit 50 ms; issue 33: ~3 s)', `${n(f.after503Sequential?.p50Ms)} / ${n(f.after503Sequential?.maxMs)} ms`, f.after503Sequential?.maxMs < 50 ? 'ok' : (bad++, 'FAIL')]);
    rows.push([tag, 'database known down: 503 latency, 20 at once p50 / max', `${n(f.after503Burst20?.p50Ms)} / ${n(f.after503Burst20?.maxMs)} ms`, slowest < 250 ? 'ok' : (bad++, 'FAIL')]);
    rows.push([tag, 'database resumed: first 200 after', `${n(f.httpBackAfterResumeMs)} ms`, '']);
    rows.push([tag, 'database restarted: SSE delivery after writes are accepted again (limit 1 s; issue 33: 8.4 s)', `${n(f.sseRecoveryAfterWritesMs)} ms`, sse <= 1000 ? 'ok' : (bad++, 'FAIL')]);
  } else {
    // Suites of other areas (races, faults, replicas, gateway): every number they report; a figure
    // whose name counts failures (5xx, missing, mismatches, violations, leaks, lost, errors) must be 0.
    const mustBeZero = /(5\d\d|5xx|missing|mismatch|violation|leak|lost|without|failure|errors$)/i;
    for (const [key, value] of Object.entries(f ?? {})) {
      if (typeof value === 'number') rows.push([tag, key, n(value), mustBeZero.test(key) ? zero(value) : '']);
    }
  }
}

const header = ['suite', 'check', 'figure', 'result'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
const line = (cells) => `| ${cells.map((c, i) => String(c).padEnd(widths[i])).join(' | ')} |`;
console.log('\nReliability and security summary');
console.log(line(header));
console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const row of rows) console.log(line(row));
console.log(bad === 0 ? '\nAll reliability figures are within bounds.' : `\n${bad} figure(s) out of bounds.`);
process.exit(bad === 0 ? 0 : 1);
