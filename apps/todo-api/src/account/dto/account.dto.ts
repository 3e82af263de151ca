import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, Length } from 'class-validator';
import { ApiKeyDto } from '../../api-keys/dto/api-key.dto.js';
import { UserDto } from '#libs/identity';
import { SubscriptionDto } from '../../billing/dto/subscription.dto.js';
import { SessionDto } from '#libs/identity';
import { TodoDto } from '../../todos/dto/todo.dto.js';
import { ConnectedAppDto, SecurityActivityDto } from '#libs/identity';
import { CurrentFactorCode, CurrentFactorPasskey, MfaStatusDto, PasskeyAssertionDto, PasskeyDto } from '#libs/identity';
import { WebhookEndpointDto } from '#libs/webhooks';

export const ACCOUNT_EXPORT_VERSION = 'v1';
const DELETE_CONFIRMATION = 'DELETE';

export class DeleteAccountDto {
  @ApiProperty({ example: 'correct horse battery staple', description: 'The current password', minLength: 1, maxLength: 128 })
  @IsString()
  @Length(1, 128)
  password: string;

  @ApiProperty({ enum: [DELETE_CONFIRMATION], description: 'Must be exactly `DELETE`' })
  @IsString()
  @IsIn([DELETE_CONFIRMATION], { message: 'confirmText must be exactly DELETE' })
  confirmText: string;

  @CurrentFactorCode()
  code?: string;

  @CurrentFactorPasskey()
  passkey?: PasskeyAssertionDto;
}

export class AccountDeletedDto {
  @ApiProperty({ enum: [true] })
  deleted: true;
}

/** A webhook endpoint of one of the account's feedback sites (feedback-export manages them). */
export class SiteWebhookEndpointDto extends WebhookEndpointDto {
  @ApiProperty({ format: 'uuid' })
  siteId: string;
}

export class AccountExportDto {
  @ApiProperty({ format: 'date-time' })
  exportedAt: string;

  @ApiProperty({ example: ACCOUNT_EXPORT_VERSION, description: 'Format version of this export' })
  version: string;

  @ApiProperty({ type: UserDto })
  account: UserDto;

  @ApiProperty({ type: [TodoDto] })
  todos: TodoDto[];

  @ApiProperty({ type: [ApiKeyDto], description: 'API key records, revoked ones included; never the key or its hash' })
  apiKeys: ApiKeyDto[];

  @ApiProperty({ type: [SessionDto] })
  sessions: SessionDto[];

  @ApiProperty({ type: SubscriptionDto })
  subscription: SubscriptionDto;

  @ApiProperty({ type: [ConnectedAppDto], description: 'Apps (AI agents) allowed through OAuth, with their scopes; never a token' })
  connectedApps: ConnectedAppDto[];

  @ApiPropertyOptional({ type: [SecurityActivityDto], description: 'The security activity log (GET /api/v1/account/activity), newest first: the last 90 days, at most 1000 entries' })
  securityActivity?: SecurityActivityDto[];

  @ApiPropertyOptional({ type: MfaStatusDto, description: 'Whether sign-in asks for a second factor, and how many recovery codes are left; never a secret or a code' })
  secondFactor?: MfaStatusDto;
  @ApiPropertyOptional({ type: [WebhookEndpointDto], description: 'Webhook endpoints (never their secrets)' })
  webhooks?: WebhookEndpointDto[];

  @ApiPropertyOptional({ type: [PasskeyDto], description: 'Passkeys (GET /api/v1/account/passkeys): names and dates, never a key' })
  passkeys?: PasskeyDto[];

  @ApiPropertyOptional({ type: [SiteWebhookEndpointDto], description: "The webhook endpoints of the account's feedback sites, each with its site id (never their secrets)" })
  siteWebhooks?: SiteWebhookEndpointDto[];
}
