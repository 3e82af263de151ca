import { Inject, Injectable, Logger } from '@nestjs/common';
import { isUuid, SignedCursorCodec, validationException } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import type { Transaction } from '#libs/database';
import { SecurityActivityPageDto, toSecurityActivityDto, type ListSecurityActivityQuery, type SecurityActivityDto } from './dto/security-activity.dto.js';
import { SecurityActivityRepository, type ActivityKeyset } from './security-activity.repository.js';
import { SECURITY_ACTIVITY_PAGE, SECURITY_ACTIVITY_RETENTION, type SecurityActivityType } from './security-activity-types.js';

/** Who did it from where (sign-ins, failed sign-ins, resets) and what it concerns; never a secret. */
export interface SecurityActivityContext {
  client?: { ipAddress: string | null; userAgent: string | null };
  details?: Record<string, unknown>;
}

function invalidCursor(): never {
  throw validationException([{ field: 'cursor', messages: ['The cursor is invalid'] }], 'The cursor is invalid');
}

/** The keyset inside a cursor this service sealed (the signature proved its origin; only the shape is checked). */
function keysetOf(payload: unknown): ActivityKeyset {
  const value = payload as { v?: unknown; t?: unknown; i?: unknown } | undefined;
  if (value?.v !== 1 || typeof value.t !== 'string' || typeof value.i !== 'string' || !isUuid(value.i)) invalidCursor();
  return { createdAtKey: value.t, id: value.i };
}

/**
 * The security activity log of each account. `record` writes an entry in the transaction of the change it
 * reports (it commits or rolls back with it); `recordAfter` reports a change that has already committed on
 * its own (a single statement), best effort: a failed write is one warning and never changes the answer.
 */
@Injectable()
export class SecurityActivityService {
  private readonly logger = new Logger(SecurityActivityService.name);
  private readonly cursors: SignedCursorCodec;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly repository: SecurityActivityRepository,
  ) {
    this.cursors = new SignedCursorCodec(config.jwtSecret, 'security-activity-cursor');
  }

  async record(tx: Transaction | undefined, userId: string, type: SecurityActivityType, context: SecurityActivityContext = {}): Promise<void> {
    await this.repository.insert(tx, userId, {
      type,
      ipAddress: context.client?.ipAddress ?? null,
      userAgent: context.client?.userAgent ?? null,
      details: context.details ?? {},
    });
  }

  /** Never rejects: the change it reports stands whatever happens to its log entry. */
  recordAfter(userId: string, type: SecurityActivityType, context: SecurityActivityContext = {}): Promise<void> {
    return this.record(undefined, userId, type, context).catch((error: Error) =>
      this.logger.warn({ userId, type, err: error.message }, 'Security activity entry not recorded'),
    );
  }

  async list(userId: string, query: ListSecurityActivityQuery): Promise<SecurityActivityPageDto> {
    const limit = query.limit ?? SECURITY_ACTIVITY_PAGE.defaultLimit;
    const after = query.cursor === undefined ? undefined : keysetOf(this.cursors.open(query.cursor));
    const rows = await this.repository.page(userId, limit + 1, after);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      activity: page.map(toSecurityActivityDto),
      nextCursor: rows.length > limit && last ? this.cursors.seal({ v: 1, t: last.createdAtKey, i: last.id }) : null,
    };
  }

  /** Every entry the account still has (the log keeps at most SECURITY_ACTIVITY_RETENTION.perAccount), newest first, for the export. */
  async allOf(userId: string): Promise<SecurityActivityDto[]> {
    return (await this.repository.page(userId, SECURITY_ACTIVITY_RETENTION.perAccount, undefined)).map(toSecurityActivityDto);
  }
}
