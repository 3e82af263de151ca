import { Inject, Injectable, Logger } from '@nestjs/common';
import { CredentialRevocations } from '#libs/identity';
import { AppException, ErrorCode, isUuid, SignedCursorCodec, validationException } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { SecurityActivityService } from '#libs/identity';
import { BillingRepository, type BetaAuditRow, type BetaGrantKeyset } from './billing.repository.js';
import type { BetaAccessRequestDto, BetaAccessResultDto } from './dto/beta-access.dto.js';
import { BETA_GRANTS_PAGE, toBetaGrantDto, type BetaGrantPageDto, type ListBetaGrantsQuery } from './dto/beta-grants.dto.js';

function invalidCursor(): never {
  throw validationException([{ field: 'cursor', messages: ['The cursor is invalid'] }], 'The cursor is invalid');
}

/** The keyset inside a cursor this service sealed (the signature proved its origin; only the shape is checked). */
function keysetOf(payload: unknown): BetaGrantKeyset {
  const value = payload as { v?: unknown; t?: unknown; u?: unknown } | undefined;
  if (value?.v !== 1 || typeof value.t !== 'string' || typeof value.u !== 'string' || !isUuid(value.u)) invalidCursor();
  return { grantedAtKey: value.t, userId: value.u };
}

/** Administrator grants and revocations of lifetime beta access, each written to the audit log. */
@Injectable()
export class BetaAccessService {
  private readonly logger = new Logger(BetaAccessService.name);
  private readonly cursors: SignedCursorCodec;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly repository: BillingRepository,
    private readonly revocations: CredentialRevocations,
    private readonly activity: SecurityActivityService,
  ) {
    this.cursors = new SignedCursorCodec(config.jwtSecret, 'beta-grants-cursor');
  }

  /** Every account that holds or held lifetime beta, newest grant first, each with its audit entries (newest first). */
  async list(query: ListBetaGrantsQuery): Promise<BetaGrantPageDto> {
    const limit = query.limit ?? BETA_GRANTS_PAGE.defaultLimit;
    const after = query.cursor === undefined ? undefined : keysetOf(this.cursors.open(query.cursor));
    const rows = await this.repository.pageBetaGrants(limit + 1, after);
    const page = rows.slice(0, limit);
    const history = new Map<string, BetaAuditRow[]>();
    for (const entry of await this.repository.betaAuditOf(
      page.map((row) => row.userId),
      BETA_GRANTS_PAGE.historyPerAccount,
    )) {
      history.set(entry.userId, [...(history.get(entry.userId) ?? []), entry]);
    }
    const last = page.at(-1);
    return {
      grants: page.map((row) => toBetaGrantDto(row, history.get(row.userId) ?? [])),
      nextCursor: rows.length > limit && last ? this.cursors.seal({ v: 1, t: last.grantedAtKey, u: last.userId }) : null,
    };
  }

  async grant(request: BetaAccessRequestDto, requestId?: string): Promise<BetaAccessResultDto> {
    const userId = await this.resolveUser(request);
    const changed = await this.repository.transaction(async (tx) => {
      const changed = await this.repository.setBetaLifetime(tx, userId, true);
      await this.repository.recordBetaAudit(tx, { userId, action: 'grant', changed, requestId });
      if (changed) await this.activity.record(tx, userId, 'beta_granted');
      return changed;
    });
    this.logger.log({ audit: 'beta-access', action: 'grant', userId, changed, requestId }, 'Lifetime beta access granted');
    return { userId, isBetaLifetime: true };
  }

  async revoke(request: BetaAccessRequestDto, requestId?: string): Promise<BetaAccessResultDto> {
    const userId = await this.resolveUser(request);
    await this.repository.transaction(async (tx) => {
      if (!(await this.repository.setBetaLifetime(tx, userId, false))) {
        throw new AppException(ErrorCode.BETA_ACCESS_NOT_FOUND, 'The user has no lifetime beta access');
      }
      await this.repository.recordBetaAudit(tx, { userId, action: 'revoke', changed: true, requestId });
      await this.activity.record(tx, userId, 'beta_revoked');
    });
    await this.revocations.announce(userId);
    this.logger.log({ audit: 'beta-access', action: 'revoke', userId, requestId }, 'Lifetime beta access revoked');
    return { userId, isBetaLifetime: false };
  }

  private async resolveUser(request: BetaAccessRequestDto): Promise<string> {
    const given = [request.userId, request.email].filter((value) => value !== undefined && value !== null);
    if (given.length !== 1) {
      throw validationException([{ field: 'userId', messages: ['give exactly one of userId or email'] }], 'Give exactly one of userId or email');
    }
    const userId = await this.repository.findUserId(request);
    if (!userId) throw new AppException(ErrorCode.USER_NOT_FOUND, 'No such user');
    return userId;
  }
}
