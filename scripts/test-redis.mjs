// `npm run test:redis [jest args]`: the end-to-end suites with rate-limit counters in Redis.
// Uses REDIS_URL if set, else starts a private redis-server (Debian's, or REDIS_SERVER_BIN) on a
// free port and stops it afterwards. With DATABASE_URL the run is on real PostgreSQL (as
// test:pg), else on embedded databases. Every test file keeps its counters under its own key
// prefix; afterwards this checks, from what each file recorded, that no counter was written
// to PostgreSQL and that the Redis keyspace held the counters.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const storageDir = join(process.cwd(), 'test-results', 'rate-limit-storage');
const redisBin = process.env.REDIS_SERVER_BIN ?? '/usr/bin/redis-server';

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

async function startRedis() {
  if (!existsSync(redisBin)) {
    console.error(`test:redis needs REDIS_URL or redis-server (${redisBin}; Debian: apt-get install redis-server).`);
    process.exit(1);
  }
  const port = await freePort();
  const child = spawn(redisBin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    if (spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout?.trim() === 'PONG') break;
    await sleep(100);
  }
  return { url: `redis://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

const privateRedis = process.env.REDIS_URL ? undefined : await startRedis();
const redisUrl = process.env.REDIS_URL ?? privateRedis.url;
rmSync(storageDir, { recursive: true, force: true });

const jestArgs = ['--experimental-vm-modules', '--no-warnings=ExperimentalWarning', 'node_modules/jest/bin/jest.js', ...process.argv.slice(2), '--selectProjects', 'e2e', 'reliability'];
const env = { ...process.env, REDIS_URL: redisUrl, ...(process.env.DATABASE_URL ? { TEST_DB: 'pg' } : {}) };
const result = spawnSync(process.execPath, jestArgs, { stdio: 'inherit', env });
privateRedis?.stop();

const files = existsSync(storageDir) ? readdirSync(storageDir).map((name) => JSON.parse(readFileSync(join(storageDir, name), 'utf8'))) : [];
const postgresRows = files.reduce((sum, file) => sum + file.postgresRows, 0);
const redisKeys = files.reduce((sum, file) => sum + file.redisKeys, 0);
console.log(
  `\nrate-limit storage (${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded'} + Redis): ${files.length} test files checked, ` +
    `counters in PostgreSQL: ${postgresRows}, in Redis: ${redisKeys} (in ${files.filter((file) => file.redisKeys > 0).length} files)`,
);
let status = result.status ?? 1;
if (postgresRows > 0) {
  console.error(`FAIL: rate-limit counters written to PostgreSQL: ${files.filter((file) => file.postgresRows > 0).map((file) => file.file).join(', ')}`);
  status = status || 1;
}
if (files.length > 0 && redisKeys === 0) {
  console.error('FAIL: no rate-limit counter found in Redis');
  status = status || 1;
}
process.exit(status);
