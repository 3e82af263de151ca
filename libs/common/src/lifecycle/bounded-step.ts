import { settleWithin } from '../concurrency/settle-within.js';

/** What became of one shutdown step. */
export type StepOutcome = 'done' | 'failed' | 'abandoned';

export interface BoundedStepOptions {
  /** Named in the warning (`step` field), e.g. `close the LISTEN connection for todo events`. */
  step: string;
  /** Epoch ms: the step is abandoned when it has not finished by then. */
  deadline: number;
  /** Called once when the deadline passes: destroy the socket the step was waiting on. */
  onAbandon?: () => void;
  /** One warning line when the step is abandoned. */
  warn: (fields: Record<string, unknown>, msg: string) => void;
}

/**
 * Runs one shutdown step (closing a connection, a pool, an app) against a deadline, so a
 * dependency that never answers (a frozen database keeps its sockets open and never
 * acknowledges a Terminate) cannot hold the process up. A step that fails is done as far as
 * shutdown goes; one that is still running at its deadline is abandoned with one warning and
 * its `onAbandon` (which destroys the socket it waits on), and the caller moves on.
 */
export async function runBoundedStep(run: () => unknown, options: BoundedStepOptions): Promise<StepOutcome> {
  const started = Date.now();
  const settled = await settleWithin(run, options.deadline - started);
  const outcome = settled === 'timed-out' ? 'abandoned' : settled;
  if (outcome === 'abandoned') {
    options.warn({ step: options.step, waitedMs: Date.now() - started }, 'Shutdown step abandoned at its deadline; moving on');
    try {
      options.onAbandon?.();
    } catch {
      // best effort: the process is about to exit anyway
    }
  }
  return outcome;
}
