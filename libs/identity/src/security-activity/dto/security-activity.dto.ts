import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { PagedQuery } from '#libs/common';
import { DEVICE_DESCRIPTION, deviceField } from '../../sessions/device-name.js';
import type { SecurityActivityRow } from '../security-activity.repository.js';
import { SECURITY_ACTIVITY_PAGE, SECURITY_ACTIVITY_TYPES, type SecurityActivityType } from '../security-activity-types.js';

export class ListSecurityActivityQuery extends PagedQuery(SECURITY_ACTIVITY_PAGE) {}

export class SecurityActivityDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ enum: SECURITY_ACTIVITY_TYPES, example: 'sign_in' })
  type: SecurityActivityType;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ type: String, nullable: true, example: '203.0.113.7', description: 'The client address, for sign-ins, failed sign-ins and resets' })
  ipAddress: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'Mozilla/5.0 …', description: 'The device (User-Agent), for sign-ins, failed sign-ins and resets' })
  userAgent: string | null;

  @ApiPropertyOptional({ type: String, example: 'Chrome 131 on macOS', description: DEVICE_DESCRIPTION })
  device?: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { sessionId: '3f2b8c1e-5d4a-4f7b-9c2d-1a2b3c4d5e6f' },
    description:
      'What the event concerns, by type: sessionId (sign_in, session_revoked), allSessions and count (session_revoked), keyId and name ' +
      '(api_key_*), clientId and clientName (oauth_app_*), disconnectedApps (password_*, email_reverted), status and cancelAtPeriodEnd (subscription_changed). Never a secret.',
  })
  details: Record<string, unknown>;
}

export function toSecurityActivityDto(row: SecurityActivityRow): SecurityActivityDto {
  return {
    id: row.id,
    type: row.type,
    createdAt: row.createdAt.toISOString(),
    ipAddress: row.ipAddress,
    userAgent: row.userAgent,
    ...deviceField(row.userAgent),
    details: row.details,
  };
}

export class SecurityActivityPageDto {
  @ApiProperty({ type: [SecurityActivityDto], description: 'Newest first' })
  activity: SecurityActivityDto[];

  @ApiProperty({ type: String, nullable: true, example: 'c1.eyJ2IjoxfQ.c2lnbmF0dXJl', description: 'Pass as `cursor` for the next (older) page; null at the end' })
  nextCursor: string | null;
}
