import { afterEach, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { until } from '#libs/testing';
import { DependencyHealth } from './dependency-health.js';

// A fixed wait only proves that nothing more happened (a stalled machine makes it weaker, never false); that something
// did happen in the background is waited for with `until` (CONTRIBUTING's timing rule).

describe('DependencyHealth', () => {
  const started: DependencyHealth[] = [];
  afterEach(() => started.splice(0).forEach((health) => health.stop()));

  function health(probe: () => Promise<unknown>, events: string[]): DependencyHealth {
    const h = new DependencyHealth({
      name: 'thing',
      probe,
      probeIntervalMs: 10,
      probeTimeoutMs: 20,
      onDown: (error) => events.push(`down:${(error as Error).message}`),
      onUp: ({ probes }) => events.push(`up after ${probes}`),
    });
    started.push(h);
    h.start();
    return h;
  }

  it('goes down once, probes in the background, and comes up on the first passing probe only', async () => {
    const events: string[] = [];
    let answers = false;
    let probes = 0;
    const h = health(async () => {
      probes++;
      if (!answers) throw new Error('refused');
    }, events);
    expect([h.state, h.isUp, probes]).toEqual(['up', true, 0]);
    h.markDown(new Error('timed out'));
    h.markDown(new Error('again'));
    expect(h.isUp).toBe(false);
    await until(() => probes >= 2, 5_000, 'two failing probes');
    expect(h.isUp).toBe(false);
    answers = true;
    await until(() => h.isUp, 5_000, 'the first passing probe');
    expect(h.state).toBe('up');
    expect(events).toEqual(['down:timed out', `up after ${probes}`]);
    const probesWhenUp = probes;
    await sleep(40);
    expect(probes).toBe(probesWhenUp);
  });

  it('counts a probe that never answers as failed, within its timeout', async () => {
    const events: string[] = [];
    let hang = true;
    let probes = 0;
    const h = health(() => (probes++, hang ? new Promise(() => undefined) : Promise.resolve()), events);
    h.markDown(new Error('stalled'));
    // A second probe starts only once the first, hung one, counted as failed at its timeout.
    await until(() => probes >= 2, 5_000, 'a second probe after a hung one');
    expect(h.isUp).toBe(false);
    hang = false;
    await until(() => h.isUp, 5_000, 'a probe that answers');
    expect(events).toHaveLength(2);
  });

  it('does not probe once stopped', async () => {
    let probes = 0;
    const h = health(async () => {
      probes++;
      throw new Error('refused');
    }, []);
    h.markDown(new Error('refused'));
    await sleep(30);
    h.stop();
    const seen = probes;
    await sleep(50);
    expect(probes).toBe(seen);
    expect(h.isUp).toBe(false);
  });
});
