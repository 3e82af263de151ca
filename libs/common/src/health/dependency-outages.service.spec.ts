import { afterEach, describe, expect, it } from '@jest/globals';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { DATABASE_KNOWN_DOWN, failFastWhile } from '#libs/database';
import { fastestOf, until } from '#libs/testing';
import { classifyDatabaseError } from '../errors/postgres-error.js';
import { AppMetrics } from '../metrics/app-metrics.js';
import { DependencyChecks } from './dependency-checks.service.js';
import { BREAKER_PROBE_INTERVAL_MS, DependencyOutages } from './dependency-outages.service.js';

describe('DependencyOutages with a circuit breaker', () => {
  const made: DependencyOutages[] = [];
  afterEach(() => made.splice(0).forEach((outages) => outages.onModuleDestroy()));

  it('is down from the first refused request until the first passing probe, then tells its recovery subscribers once', async () => {
    const outages = new DependencyOutages(new DependencyChecks(), new AppMetrics());
    made.push(outages);
    let answers = false;
    let probes = 0;
    outages.breaker('database', async () => {
      probes++;
      if (!answers) throw new Error('refused');
    });
    const recovered: string[] = [];
    outages.onRecovered((dependency) => recovered.push(dependency));

    outages.refused('database', new Error('Connection terminated'));
    outages.refused('database', new Error('Connection terminated'));
    expect(outages.isDown('database')).toBe(true);
    await until(() => probes >= 1, 5_000, 'a failing probe');
    expect([outages.isDown('database'), recovered]).toEqual([true, []]);

    answers = true;
    await until(() => !outages.isDown('database'), 5_000, 'the first passing probe');
    expect(recovered).toEqual(['database']);
    const probesWhenUp = probes;
    await sleep(BREAKER_PROBE_INTERVAL_MS + 50);
    expect(probes).toBe(probesWhenUp); // no probing while up
  });
});

describe('failFastWhile (the breaker gate on a pool)', () => {
  it('refuses a borrow at once, promise and callback style, with an error answered 503; lets it through once unblocked', async () => {
    // A listener that counts connections and never answers: a blocked borrow must not reach it at all (so it cannot
    // wait on it), an unblocked one does and then waits out the pool's connection timeout.
    const reached: Socket[] = [];
    const listener = createServer((socket) => reached.push(socket));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const pool = new pg.Pool({ host: '127.0.0.1', port: (listener.address() as AddressInfo).port, connectionTimeoutMillis: 500 });
    try {
      let blocked = true;
      failFastWhile(pool, () => blocked);
      // "At once": the cheapest of three spaced tries (fastestOf), as CONTRIBUTING's timing rule says.
      const { ms, result: viaCallback } = await fastestOf(async () => {
        await expect(pool.connect()).rejects.toThrow(DATABASE_KNOWN_DOWN);
        await expect(pool.query('SELECT 1')).rejects.toThrow(DATABASE_KNOWN_DOWN);
        return new Promise<Error | undefined>((resolve) => void pool.connect((error) => resolve(error)));
      }, 50);
      expect(ms).toBeLessThan(50);
      expect(reached).toHaveLength(0);
      expect(viaCallback?.message).toBe(DATABASE_KNOWN_DOWN);
      expect(classifyDatabaseError(viaCallback)).toEqual({ code: 'SERVICE_UNAVAILABLE', message: 'The database is unavailable' });

      blocked = false;
      await expect(pool.connect()).rejects.toThrow(/timeout/);
      expect(reached).toHaveLength(1);
    } finally {
      await pool.end();
      reached.forEach((socket) => socket.destroy());
      await new Promise((resolve) => listener.close(resolve));
    }
  });
});
