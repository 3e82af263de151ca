import { createServer } from 'node:net';

/**
 * Ports handed out below Linux's ephemeral range (32768–60999), where the kernel picks ports for `listen(0)` and for
 * outgoing connections. A port taken from that range and freed again can be given to any other socket of any process
 * before the test's server binds it: CI saw a todo-api fail with EADDRINUSE on the port its PUBLIC_BASE_URL named.
 */
const FIRST_PORT = 15_000;
const LAST_PORT = 32_767;
/** Each Jest worker gets its own block, so parallel test files never race for one port. */
const BLOCK_SIZE = 500;

const workerIndex = Math.max(0, Number(process.env.JEST_WORKER_ID ?? 1) - 1);
const blockCount = Math.floor((LAST_PORT - FIRST_PORT + 1) / BLOCK_SIZE);
const blockStart = FIRST_PORT + (workerIndex % blockCount) * BLOCK_SIZE;
/** Where this file's run starts in the block: the files a worker runs one after another start at different places. */
let next = Math.floor(Math.random() * BLOCK_SIZE);

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/**
 * A TCP port on 127.0.0.1 that is free now and that no other Jest worker's freePort hands out (for servers a test
 * starts: an app whose public URL names its port, nginx, a private PostgreSQL).
 */
export async function freePort(): Promise<number> {
  for (let tried = 0; tried < BLOCK_SIZE; tried++) {
    const port = blockStart + (next++ % BLOCK_SIZE);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port in ${blockStart}–${blockStart + BLOCK_SIZE - 1}`);
}
