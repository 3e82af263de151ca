import { Controller, Delete, Get, Param } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, CurrentUserId, ErrorCode, RateLimit, UseAuth, UUID_PARAM } from '#libs/common';
import { SessionListDto, SessionRevokedDto } from './dto/session.dto.js';
import { SessionsService } from './sessions.service.js';

@ApiTags('Sessions')
@Controller('api/v1/auth/sessions')
@UseAuth('jwt')
export class SessionsController {
  constructor(private readonly sessions: SessionsService) {}

  @Get()
  @ApiOperation({ operationId: 'listSessions', summary: "The caller's refresh-token sessions, newest first" })
  @ApiEnvelope(SessionListDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED)
  list(@CurrentUserId() userId: string): Promise<SessionListDto> {
    return this.sessions.list(userId);
  }

  @Delete(':sessionId')
  // Revoking a session must work while the counters' store is down.
  @RateLimit({ bucket: 'session-revoke', limit: 60, windowSeconds: 60, storeOutage: 'fail-open' })
  @ApiOperation({
    operationId: 'revokeSession',
    summary: 'Revoke one of your sessions',
    description: 'Its refresh token and every access token of the session stop working at once.',
  })
  @ApiParam({ name: 'sessionId', format: 'uuid' })
  @ApiEnvelope(SessionRevokedDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.NOT_FOUND)
  revoke(@CurrentUserId() userId: string, @Param('sessionId', UUID_PARAM) sessionId: string): Promise<SessionRevokedDto> {
    return this.sessions.revoke(userId, sessionId);
  }
}
