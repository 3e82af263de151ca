/** How a bounded piece of work ended: it resolved, it threw or rejected, or it was still running at its limit. */
export type Settled = 'done' | 'failed' | 'timed-out';

/**
 * Runs `work` and waits for it at most `ms`: a check, a probe or a shutdown step that must not
 * hold its caller up. What `work` answers is not kept, a failure is an outcome (never thrown),
 * and work still running at the limit is left running (the caller decides what to do about it).
 */
export async function settleWithin(work: () => unknown, ms: number): Promise<Settled> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<'timed-out'>((resolve) => {
    timer = setTimeout(() => resolve('timed-out'), Math.max(0, ms));
  });
  const finished = Promise.resolve()
    .then(work)
    .then(
      () => 'done' as const,
      () => 'failed' as const,
    );
  try {
    return await Promise.race([finished, limit]);
  } finally {
    clearTimeout(timer);
  }
}
