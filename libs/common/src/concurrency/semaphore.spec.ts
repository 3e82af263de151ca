import { describe, expect, it } from '@jest/globals';
import { AppException } from '../errors/app.exception.js';
import { Semaphore } from './semaphore.js';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Semaphore', () => {
  it('never runs more than its permits at once, and runs every task', async () => {
    const semaphore = new Semaphore(2, 100);
    let running = 0;
    let peak = 0;
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        semaphore.run(async () => {
          running++;
          peak = Math.max(peak, running);
          await tick(2);
          running--;
          return i;
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(semaphore.active).toBe(0);
  });

  it('refuses with 503 SERVICE_UNAVAILABLE once the queue is full', async () => {
    const semaphore = new Semaphore(1, 2);
    const settled = await Promise.allSettled(Array.from({ length: 5 }, () => semaphore.run(() => tick(5))));
    const refused = settled.filter((s) => s.status === 'rejected');
    expect(refused).toHaveLength(2);
    const error = (refused[0] as PromiseRejectedResult).reason as AppException;
    expect(error).toBeInstanceOf(AppException);
    expect(error.status).toBe(503);
    expect(error.headers?.['Retry-After']).toBe('2');
  });

  it('releases the permit when a task fails', async () => {
    const semaphore = new Semaphore(1, 10);
    await expect(semaphore.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(semaphore.run(async () => 'ok')).resolves.toBe('ok');
  });
});
