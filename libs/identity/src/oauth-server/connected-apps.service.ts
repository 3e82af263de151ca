import { Injectable } from '@nestjs/common';
import { AppException, ErrorCode } from '#libs/common';
import { SecurityActivityService } from '../security-activity/security-activity.service.js';
import { toConnectedAppDtos, type ConnectedAppListDto, type ConnectedAppRevokedDto } from './dto/connected-app.dto.js';
import { OAuthRecordsRepository } from './oauth-records.repository.js';

/**
 * The apps (OAuth clients) an account has allowed. Revoking one deletes its grants: every
 * access token checks its grant on use, so they stop at once, on every replica.
 */
@Injectable()
export class ConnectedAppsService {
  constructor(
    private readonly records: OAuthRecordsRepository,
    private readonly activity: SecurityActivityService,
  ) {}

  async list(userId: string): Promise<ConnectedAppListDto> {
    return { connectedApps: toConnectedAppDtos(await this.records.listGrants(userId)) };
  }

  async revoke(userId: string, clientId: string): Promise<ConnectedAppRevokedDto> {
    if ((await this.records.deleteClientGrants(userId, clientId)) === 0) throw new AppException(ErrorCode.NOT_FOUND, 'No connected app with this client id');
    await this.activity.recordAfter(userId, 'oauth_app_disconnected', { details: { clientId } });
    return { revoked: true };
  }
}
