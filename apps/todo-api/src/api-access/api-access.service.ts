import { Injectable } from '@nestjs/common';
import { AppException, ErrorCode } from '#libs/common';
import { ApiKeyAccessRepository } from './api-key-access.repository.js';

/** The paid-API access rule as other features reach it (never through the repository). */
@Injectable()
export class ApiAccessService {
  constructor(private readonly access: ApiKeyAccessRepository) {}

  /** 402 SUBSCRIPTION_REQUIRED with this message unless the account has API access (active or trialing subscription, lifetime beta). */
  async requireApiAccess(userId: string, message: string): Promise<void> {
    if (!(await this.access.userHasApiAccess(userId))) throw new AppException(ErrorCode.SUBSCRIPTION_REQUIRED, message);
  }
}
