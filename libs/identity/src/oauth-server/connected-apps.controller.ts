import { Controller, Delete, Get, Param } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, CurrentUserId, ErrorCode, RateLimit, UseAuth } from '#libs/common';
import { ConnectedAppsService } from './connected-apps.service.js';
import { ConnectedAppListDto, ConnectedAppRevokedDto } from './dto/connected-app.dto.js';

@ApiTags('Account')
@Controller('api/v1/account/connected-apps')
@UseAuth('jwt')
export class ConnectedAppsController {
  constructor(private readonly connectedApps: ConnectedAppsService) {}

  @Get()
  @ApiOperation({
    operationId: 'listConnectedApps',
    summary: 'The apps (AI agents) you allowed through OAuth, with the scopes you gave them',
  })
  @ApiEnvelope(ConnectedAppListDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED)
  list(@CurrentUserId() userId: string): Promise<ConnectedAppListDto> {
    return this.connectedApps.list(userId);
  }

  @Delete(':clientId')
  // Disconnecting an app must work while the counters' store is down.
  @RateLimit({ bucket: 'connected-app-revoke', limit: 60, windowSeconds: 60, storeOutage: 'fail-open' })
  @ApiOperation({
    operationId: 'revokeConnectedApp',
    summary: 'Disconnect an app',
    description: 'Its grants, refresh tokens and access tokens stop working at once (the MCP endpoint checks the grant on every request).',
  })
  @ApiParam({ name: 'clientId', description: 'The app’s OAuth client id (from the list)' })
  @ApiEnvelope(ConnectedAppRevokedDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.NOT_FOUND)
  revoke(@CurrentUserId() userId: string, @Param('clientId') clientId: string): Promise<ConnectedAppRevokedDto> {
    return this.connectedApps.revoke(userId, clientId);
  }
}
