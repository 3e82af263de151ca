import { describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppException } from '../errors/app.exception.js';
import { PrioritySemaphore, Semaphore } from './semaphore.js';

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
          await sleep(2);
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
    const settled = await Promise.allSettled(Array.from({ length: 5 }, () => semaphore.run(() => sleep(5))));
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

describe('PrioritySemaphore', () => {
  /** A task that runs until `release()` is called. */
  function held() {
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    return { task: () => done, release };
  }

  it('hands a freed permit to the first lane first, whatever waited longer in a later lane', async () => {
    const semaphore = new PrioritySemaphore(1, { signIn: { maxWaiting: 10 }, newPassword: { maxWaiting: 10 } });
    const order: string[] = [];
    const running = held();
    const first = semaphore.run('newPassword', running.task);
    const flood = Array.from({ length: 5 }, (_, i) => semaphore.run('newPassword', async () => void order.push(`signup-${i}`)));
    const login = semaphore.run('signIn', async () => void order.push('login'));
    expect([semaphore.queued('newPassword'), semaphore.queued('signIn'), semaphore.queued()]).toEqual([5, 1, 6]);
    running.release();
    await Promise.all([first, login, ...flood]);
    expect(order).toEqual(['login', 'signup-0', 'signup-1', 'signup-2', 'signup-3', 'signup-4']);
  });

  it('refuses beyond each lane’s own queue: a full later lane does not refuse the first', async () => {
    const refusedSignups: number[] = [];
    const semaphore = new PrioritySemaphore(1, {
      signIn: { maxWaiting: 2 },
      newPassword: { maxWaiting: 3, busyMessage: 'busy signing up', onRefused: () => refusedSignups.push(1) },
    });
    const running = held();
    const first = semaphore.run('newPassword', running.task);
    const signups = Array.from({ length: 6 }, () => semaphore.run('newPassword', () => sleep(1)));
    const logins = Array.from({ length: 2 }, () => semaphore.run('signIn', () => sleep(1)));
    running.release();
    const settled = await Promise.allSettled([...signups, ...logins]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'rejected', 'rejected', 'fulfilled', 'fulfilled']);
    expect(((settled[3] as PromiseRejectedResult).reason as AppException).message).toBe('busy signing up');
    expect(refusedSignups).toHaveLength(3);
    await first;
    expect(semaphore.active).toBe(0);
  });
});
