import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { RevokedOAuthApp } from '../../oauth-resource/oauth-access.repository.js';
import type { UserRow } from '../../accounts/account.rows.js';

export class UserDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'usr_5f1c0e9a7b3d42e8a1c6d0b2' })
  user_key: string;

  @ApiProperty({ example: 'Ada Lovelace', type: String, nullable: true })
  name: string | null;

  @ApiProperty({ example: 'ada' })
  username: string;

  @ApiProperty({ format: 'email' })
  email: string;

  @ApiProperty({ enum: ['user', 'admin'] })
  privilege: string;

  @ApiProperty({ format: 'date-time' })
  date_joined: string;

  @ApiProperty({ type: 'integer', enum: [0, 1], description: '1 once the e-mail address is confirmed' })
  email_confirmed: number;
}

export function toUserDto(user: UserRow): UserDto {
  return {
    id: user.id,
    user_key: user.userKey,
    name: user.name,
    username: user.username,
    email: user.email,
    privilege: user.privilege,
    date_joined: user.dateJoined.toISOString(),
    email_confirmed: user.emailConfirmed,
  };
}

export class AuthTokenDataDto {
  @ApiProperty({ example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIzYjI0MTEwMSJ9.c2lnbmF0dXJl', description: 'Access token: HS256 JWT, valid 15 minutes, carrying the user id (sub) and session id (sid)' })
  token: string;

  @ApiProperty({ example: 'Vq3mX0k9pL2sT8wR1yU6zA4bC7dE5fG3hJ0kM2nP9qS', description: 'Opaque refresh token, valid 30 days; rotated by every refresh: store the new one each time' })
  refreshToken: string;

  @ApiProperty({ type: UserDto, description: 'The signed-in user; always present in answers of signup, login and refresh' })
  user: UserDto;
}

export class VerifyDataDto {
  @ApiProperty({ type: UserDto })
  user: UserDto;
}

export class MessageDto {
  @ApiProperty({ example: 'Done' })
  message: string;
}

export class DisconnectedAppDto {
  @ApiProperty({ example: 'xLGWypLoemYcSlpDTS5eBY6uDNzKAw8GyRG-t_oYKNv', description: 'The OAuth client id the app registered' })
  clientId: string;

  @ApiProperty({ type: String, nullable: true, example: 'Claude', description: 'The name the app gave itself (its own claim, not verified by this service)' })
  clientName: string | null;
}

/** The answer of change-password and reset-password: the published message, and the apps the change disconnected. */
export class PasswordChangedDto extends MessageDto {
  @ApiPropertyOptional({
    type: [DisconnectedAppDto],
    description: 'The connected apps (OAuth clients) whose access and refresh tokens the change revoked, with the sessions; an app must be allowed again to reconnect. Absent when none was connected',
  })
  disconnectedApps?: DisconnectedAppDto[];
}

/** The answer of a password change or reset: `disconnectedApps` only when the change disconnected any (the published answer is `{message}`). */
export function toPasswordChangedDto(message: string, disconnected: RevokedOAuthApp[]): PasswordChangedDto {
  if (disconnected.length === 0) return { message };
  return { message, disconnectedApps: disconnected.map((app) => ({ clientId: app.clientId, clientName: app.clientName })) };
}

export class ResetTokenDto {
  @ApiProperty({ example: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIzYjI0MTEwMSJ9.c2lnbmF0dXJl', description: 'Reset token for reset-password: single use, valid 15 minutes' })
  token: string;
}
