import { Injectable, Logger } from '@nestjs/common';
import { CredentialRevocations } from '#libs/identity';
import { AppException, ErrorCode, validationException } from '#libs/common';
import { SecurityActivityService } from '#libs/identity';
import { BillingRepository } from './billing.repository.js';
import type { BetaAccessRequestDto, BetaAccessResultDto } from './dto/beta-access.dto.js';

/** Administrator grants and revocations of lifetime beta access, each written to the audit log. */
@Injectable()
export class BetaAccessService {
  private readonly logger = new Logger(BetaAccessService.name);

  constructor(
    private readonly repository: BillingRepository,
    private readonly revocations: CredentialRevocations,
    private readonly activity: SecurityActivityService,
  ) {}

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
