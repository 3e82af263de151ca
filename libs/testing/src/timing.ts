import { setTimeout as sleep } from 'node:timers/promises';

/**
 * What a measurement counts: `wall` is elapsed time; `cpu` is this process's CPU time, which counts all its threads,
 * so V8's garbage-collection helpers and libuv's pool finishing earlier work land on whatever is being measured.
 */
export type Clock = 'wall' | 'cpu';

const clocks: Record<Clock, () => () => number> = {
  wall: () => {
    const started = performance.now();
    return () => performance.now() - started;
  },
  cpu: () => {
    const started = process.cpuUsage();
    return () => {
      const used = process.cpuUsage(started);
      return (used.user + used.system) / 1000;
    };
  },
};

/** Starts `clock`: the function returned reads the ms it has counted since. */
export function startClock(clock: Clock): () => number {
  return clocks[clock]();
}

/** How many ms (of `clock`) one piece of work took, with its result. */
export async function timed<T>(work: () => T | Promise<T>, clock: Clock = 'wall'): Promise<{ ms: number; result: T }> {
  const elapsed = startClock(clock);
  const result = await work();
  return { ms: elapsed(), result };
}

/** The pause before the second try over the limit; each later pause doubles it. */
export const FASTEST_OF_FIRST_PAUSE_MS = 100;

/**
 * The fastest of up to `tries` runs, stopping as soon as one is under `limitMs`: slow input (a backtracking pattern,
 * a quadratic parse, a view that sanitises) is slow every time, while a busy machine (2 shared cores, a garbage
 * collection, a neighbouring suite) only sometimes. Timing limits in tests go through this, on either clock, so they
 * catch the first and not the second. A try over the limit is followed by a pause (100, 200, 400 ms…) before the
 * next: back to back, three tries of a few ms all fell inside one stall of the machine (CI saw the fastest of three
 * take 60 ms against 50), so one stall could fail what three tries were meant to forgive.
 */
export async function fastestOf<T>(work: () => T | Promise<T>, limitMs: number, tries = 3, clock: Clock = 'wall'): Promise<{ ms: number; result: T }> {
  let best = await timed(work, clock);
  for (let attempt = 1; attempt < tries && best.ms >= limitMs; attempt++) {
    await sleep(FASTEST_OF_FIRST_PAUSE_MS * 2 ** (attempt - 1));
    const next = await timed(work, clock);
    if (next.ms < best.ms) best = next;
  }
  return best;
}

/**
 * Runs a case that counts hits up to a fixed-window limit. The window opens at its first hit and closes `windowMs`
 * later by the wall clock, which is what Redis and PostgreSQL expire it by. A case that outlives it sees the count
 * start over and fails for a reason it does not test: CI once saw a 60-hit loop's window close after 55 hits, with
 * 70 s gone by the wall clock but no 30 s test timeout fired (the machine paused, or its clock was stepped). Only
 * then does the case run again, on fresh state it makes itself; a wrong count inside one window fails at once.
 */
export async function withinOneWindow<T>(windowMs: number, attempt: () => Promise<T>, tries = 2): Promise<T> {
  for (let run = 1; ; run++) {
    const started = Date.now();
    try {
      return await attempt();
    } catch (error) {
      if (run >= tries || Date.now() - started < windowMs) throw error;
    }
  }
}
