import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { SessionRow } from '../../accounts/account.rows.js';
import { DEVICE_DESCRIPTION, deviceField } from '../device-name.js';

export class SessionDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  lastUsedAt: string | null;

  @ApiProperty({ format: 'date-time' })
  expiresAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  revokedAt: string | null;

  @ApiProperty({ description: 'Not revoked and not expired' })
  isActive: boolean;

  @ApiProperty({ type: String, nullable: true, example: 'Mozilla/5.0 …' })
  userAgent: string | null;

  @ApiPropertyOptional({ type: String, example: 'Chrome 131 on macOS', description: DEVICE_DESCRIPTION })
  device?: string;

  @ApiProperty({ type: String, nullable: true, example: '203.0.113.7' })
  ipAddress: string | null;
}

export function toSessionDto(session: SessionRow, now = new Date()): SessionDto {
  return {
    id: session.id,
    createdAt: session.createdAt.toISOString(),
    lastUsedAt: session.lastUsedAt ? session.lastUsedAt.toISOString() : null,
    expiresAt: session.expiresAt.toISOString(),
    revokedAt: session.revokedAt ? session.revokedAt.toISOString() : null,
    isActive: session.revokedAt === null && session.expiresAt.getTime() > now.getTime(),
    userAgent: session.userAgent,
    ...deviceField(session.userAgent),
    ipAddress: session.ipAddress,
  };
}

export class SessionListDto {
  @ApiProperty({ type: [SessionDto], description: 'The most recent 200 sessions, newest first (revoked and expired ones included)' })
  sessions: SessionDto[];
}

export class SessionRevokedDto {
  @ApiProperty({ example: true, description: 'True: the session is revoked (also when it already was)' })
  revoked: boolean;
}
