import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsISO8601, IsOptional, IsString, Length, Matches, Max, MaxLength, Min } from 'class-validator';
import type { ApiKeyRow } from '../../api-access/api-access.rows.js';

/** RFC 3339 date-time with seconds and an offset, e.g. 2027-01-31T12:00:00Z. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;
/** The longest DATE_TIME: nine fraction digits and an offset. */
const DATE_TIME_MAX_LENGTH = '2027-01-31T12:00:00.123456789+01:00'.length;
const MAX_EXPIRES_IN_DAYS = 3650;

export class CreateApiKeyDto {
  @ApiProperty({ minLength: 1, maxLength: 80, example: 'CI pipeline' })
  @IsString()
  @Length(1, 80)
  @Matches(/\S/, { message: 'name must not be blank' })
  name: string;

  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true, description: 'When the key stops working; must be in the future. Not together with expiresInDays.' })
  @IsOptional()
  @IsString()
  @MaxLength(DATE_TIME_MAX_LENGTH, { message: 'expiresAt must be a date-time such as 2027-01-31T12:00:00Z' })
  @Matches(DATE_TIME, { message: 'expiresAt must be a date-time such as 2027-01-31T12:00:00Z' })
  @IsISO8601({ strict: true })
  expiresAt?: string | null;

  @ApiPropertyOptional({ type: Number, minimum: 1, maximum: MAX_EXPIRES_IN_DAYS, description: 'Days until the key stops working. Not together with expiresAt.' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_EXPIRES_IN_DAYS)
  expiresInDays?: number;
}

export class RotateApiKeyDto {
  @ApiPropertyOptional({ type: String, format: 'date-time', nullable: true, description: 'New expiry (future); null removes it. Without any expiry option the current one is kept.' })
  @IsOptional()
  @IsString()
  @MaxLength(DATE_TIME_MAX_LENGTH, { message: 'expiresAt must be a date-time such as 2027-01-31T12:00:00Z' })
  @Matches(DATE_TIME, { message: 'expiresAt must be a date-time such as 2027-01-31T12:00:00Z' })
  @IsISO8601({ strict: true })
  expiresAt?: string | null;

  @ApiPropertyOptional({ type: Number, minimum: 1, maximum: MAX_EXPIRES_IN_DAYS, description: 'New expiry in days from now' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_EXPIRES_IN_DAYS)
  expiresInDays?: number;

  @ApiPropertyOptional({ type: Boolean, description: 'true: the rotated key never expires' })
  @IsOptional()
  @IsBoolean()
  clearExpiry?: boolean;
}

export class ApiKeyDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'CI pipeline' })
  name: string;

  @ApiProperty({ example: 'tdk_8fK2pQ1x', description: 'The first 12 characters of the key, to recognise it' })
  prefix: string;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, description: 'Last use, recorded at most once a minute' })
  lastUsedAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  expiresAt: string | null;

  @ApiProperty({ type: String, format: 'date-time', nullable: true })
  revokedAt: string | null;
}

export function toApiKeyDto(key: ApiKeyRow): ApiKeyDto {
  const iso = (value: Date | null) => (value ? new Date(value).toISOString() : null);
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    createdAt: new Date(key.createdAt).toISOString(),
    lastUsedAt: iso(key.lastUsedAt),
    expiresAt: iso(key.expiresAt),
    revokedAt: iso(key.revokedAt),
  };
}

export class ApiKeyListDto {
  @ApiProperty({ type: [ApiKeyDto], description: 'Every key of the account, revoked ones included, oldest first; never the secret' })
  keys: ApiKeyDto[];
}

export class ApiKeySecretDto {
  @ApiProperty({ example: 'tdk_8fK2pQ1xV0aZ...', description: 'The full key. Shown only now: store it, it cannot be retrieved again.' })
  apiKey: string;

  @ApiProperty({ type: ApiKeyDto })
  key: ApiKeyDto;
}

export class ApiKeyRevokedDto {
  @ApiProperty({ description: 'The key is revoked (also when it already was)' })
  revoked: boolean;
}

export class CurrentApiKeyDto {
  @ApiProperty({ type: ApiKeyDto })
  key: ApiKeyDto;
}
