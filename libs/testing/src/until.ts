import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `check` (every 20 ms) until it is true; throws, naming `what`, when `timeoutMs` passes
 * first. For tests that wait on state that changes in the background (a subscriber gone, a
 * database back).
 */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 2000, what = 'the condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}
