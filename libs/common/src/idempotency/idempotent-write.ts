import { createHash } from 'node:crypto';
import { IdempotencyKeys, type Transaction } from '#libs/database';
import { AppException } from '../errors/app.exception.js';
import { ErrorCode } from '../errors/error-code.enum.js';
import { validationException } from '../http/validation.js';

/** How long an Idempotency-Key replays its first answer. */
export const IDEMPOTENCY_WINDOW_HOURS = 24;
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** The response header of a replayed answer. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** Refuses (400) an Idempotency-Key header that is not 1..255 visible ASCII characters. */
export function assertIdempotencyKey(key: string | undefined): void {
  if (key !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(key)) {
    throw validationException(
      [{ field: 'Idempotency-Key', messages: [`must be 1..${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters`] }],
      'The Idempotency-Key header is invalid',
    );
  }
}

/** The hash a key's first request is remembered by: the request's meaningful fields, in a fixed order. */
export function idempotencyRequestHash(fields: unknown[]): string {
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}

export interface IdempotentRequest {
  /** Whose keys: `key:<api key id>`, `grant:<grant id>`, `site:<site id>`. */
  caller: string;
  key: string;
  /** The account the key's row belongs to (deleted with it). */
  userId: string;
  requestHash: string;
  /** Set for an API key's keys, so deleting the key deletes them. */
  apiKeyId?: string | null;
}

/**
 * The one Idempotency-Key mechanism (todos, the feedback widget). Inside `tx`: claims the key,
 * or answers the first request's stored answer again (`replayed`), or refuses a reuse with
 * another request (422 IDEMPOTENCY_KEY_REUSED). A new request runs `write` and its answer is
 * stored in the same transaction. Concurrent requests with one key: the second claim waits for
 * the first's commit, then replays it. Without a request (no header) `write` just runs.
 */
export async function idempotentWrite<T>(
  tx: Transaction,
  request: IdempotentRequest | undefined,
  statusCode: number,
  write: () => Promise<T>,
): Promise<{ data: T; replayed: boolean }> {
  if (!request) return { data: await write(), replayed: false };
  const claimed = await IdempotencyKeys.claim(tx, request.caller, request.key, request.userId, request.requestHash, IDEMPOTENCY_WINDOW_HOURS, request.apiKeyId ?? null);
  if (!claimed) {
    const earlier = await IdempotencyKeys.find(tx, request.caller, request.key);
    if (!earlier || earlier.requestHash !== request.requestHash || earlier.response === null) {
      throw new AppException(ErrorCode.IDEMPOTENCY_KEY_REUSED, `This Idempotency-Key was already used for a different request within the last ${IDEMPOTENCY_WINDOW_HOURS} hours`);
    }
    return { data: earlier.response as T, replayed: true };
  }
  const data = await write();
  await IdempotencyKeys.store(tx, request.caller, request.key, statusCode, data);
  return { data, replayed: false };
}
