/** How long one piece of work took, with its result. */
export async function timed<T>(work: () => T | Promise<T>): Promise<{ ms: number; result: T }> {
  const started = performance.now();
  const result = await work();
  return { ms: performance.now() - started, result };
}

/**
 * The fastest of up to `tries` runs, stopping as soon as one is under `limitMs`: slow input (a backtracking pattern,
 * a quadratic parse) is slow every time, while a busy machine (2 shared cores, a garbage collection, a neighbouring
 * suite) only sometimes. Timing limits in tests go through this, so they catch the first and not the second.
 */
export async function fastestOf<T>(work: () => T | Promise<T>, limitMs: number, tries = 3): Promise<{ ms: number; result: T }> {
  let best = await timed(work);
  for (let attempt = 1; attempt < tries && best.ms >= limitMs; attempt++) {
    const next = await timed(work);
    if (next.ms < best.ms) best = next;
  }
  return best;
}
