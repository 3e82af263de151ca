import { Injectable } from '@nestjs/common';
import { AppException, ErrorCode } from '#libs/common';
import type { ConnectedAppDto, ConnectedAppListDto, ConnectedAppRevokedDto } from './dto/connected-app.dto.js';
import { OAuthRecordsRepository, type GrantRow } from './oauth-records.repository.js';

/** Merges an account's grants per client (a client signed in twice holds two). */
function toConnectedApps(grants: GrantRow[]): ConnectedAppDto[] {
  const byClient = new Map<string, ConnectedAppDto>();
  for (const grant of grants) {
    const app = byClient.get(grant.clientId) ?? { clientId: grant.clientId, clientName: grant.clientName, scopes: [], resources: [], connectedAt: new Date(grant.createdAt).toISOString() };
    for (const [resource, scope] of Object.entries(grant.resources)) {
      if (!app.resources.includes(resource)) app.resources.push(resource);
      for (const item of scope.split(' ').filter(Boolean)) if (!app.scopes.includes(item)) app.scopes.push(item);
    }
    byClient.set(grant.clientId, app);
  }
  return [...byClient.values()];
}

/**
 * The apps (OAuth clients) an account has allowed. Revoking one deletes its grants: every
 * access token checks its grant on use, so they stop at once, on every replica.
 */
@Injectable()
export class ConnectedAppsService {
  constructor(private readonly records: OAuthRecordsRepository) {}

  async list(userId: string): Promise<ConnectedAppListDto> {
    return { connectedApps: toConnectedApps(await this.records.listGrants(userId)) };
  }

  async revoke(userId: string, clientId: string): Promise<ConnectedAppRevokedDto> {
    if ((await this.records.deleteClientGrants(userId, clientId)) === 0) throw new AppException(ErrorCode.NOT_FOUND, 'No connected app with this client id');
    return { revoked: true };
  }
}
