import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Length, Max, Min } from 'class-validator';
import type { SecurityActivityRow } from '../security-activity.repository.js';
import { SECURITY_ACTIVITY_PAGE, SECURITY_ACTIVITY_TYPES, type SecurityActivityType } from '../security-activity-types.js';

/** Query strings arrive as text: only a plain decimal integer becomes a number (anything else fails IsInt). */
const toInteger = ({ value }: { value: unknown }) => (typeof value === 'string' && /^[0-9]{1,10}$/.test(value) ? Number(value) : value);

export class ListSecurityActivityQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: SECURITY_ACTIVITY_PAGE.maxLimit, default: SECURITY_ACTIVITY_PAGE.defaultLimit })
  @IsOptional()
  @Transform(toInteger)
  @IsInt()
  @Min(1)
  @Max(SECURITY_ACTIVITY_PAGE.maxLimit)
  limit?: number;

  @ApiPropertyOptional({ description: 'Opaque `nextCursor` of the previous page' })
  @IsOptional()
  @IsString()
  @Length(1, 500)
  cursor?: string;
}

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
    details: row.details,
  };
}

export class SecurityActivityPageDto {
  @ApiProperty({ type: [SecurityActivityDto], description: 'Newest first' })
  activity: SecurityActivityDto[];

  @ApiProperty({ type: String, nullable: true, example: 'c1.eyJ2IjoxfQ.c2lnbmF0dXJl', description: 'Pass as `cursor` for the next (older) page; null at the end' })
  nextCursor: string | null;
}
