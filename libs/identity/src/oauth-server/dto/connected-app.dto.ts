import { ApiProperty } from '@nestjs/swagger';
import type { GrantRow } from '../oauth-records.repository.js';

export class ConnectedAppDto {
  @ApiProperty({ example: 'xLGWypLoemYcSlpDTS5eBY6uDNzKAw8GyRG-t_oYKNv', description: 'The OAuth client id the app registered' })
  clientId: string;

  @ApiProperty({ type: String, nullable: true, example: 'Claude', description:
      'The name the app gave itself: at registration, or (for an app whose client id is the URL of its client ID metadata document) in that document as fetched when you allowed it. It is the app’s own claim, not verified by this service; the client id is what identifies it' })
  clientName: string | null;

  @ApiProperty({ type: [String], example: ['todos:read', 'todos:write'], description: 'The scopes you allowed it' })
  scopes: string[];

  @ApiProperty({ type: [String], example: ['https://todo.example.com/api/v1/mcp'], description: 'The resources (MCP endpoints) its tokens are for' })
  resources: string[];

  @ApiProperty({ format: 'date-time', description: 'When you allowed it (the first time, if more than once)' })
  connectedAt: string;
}

/** Merges an account's grants per client (a client signed in twice holds two). */
export function toConnectedAppDtos(grants: GrantRow[]): ConnectedAppDto[] {
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

export class ConnectedAppListDto {
  @ApiProperty({ type: [ConnectedAppDto], description: 'Apps holding a live grant, oldest first' })
  connectedApps: ConnectedAppDto[];
}

export class ConnectedAppRevokedDto {
  @ApiProperty({ example: true, description: 'The app’s grant, refresh tokens and access tokens are revoked' })
  revoked: true;
}
