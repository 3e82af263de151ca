/**
 * Delays before each retry after a failed attempt (exponential-ish, Svix-like), about 3 days 3 h in all:
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h. The first attempt is immediate; after the last retry
 * fails the delivery is `failed` (a manual replay sends it again). Each delay gets ±20 % jitter.
 */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000];

const JITTER = 0.2;

/** The delay before the retry following attempt number `attempts` (1-based), or undefined when none is left. */
export function retryDelayMs(schedule: readonly number[], attempts: number, random: () => number = Math.random): number | undefined {
  const base = schedule[attempts - 1];
  if (base === undefined) return undefined;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}
