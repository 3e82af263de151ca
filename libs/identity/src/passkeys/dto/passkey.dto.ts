import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsIn, IsInt, IsNotEmpty, IsObject, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { IsOptionalNotNull } from '#libs/common';
import type { PasskeyRow } from '../passkeys.repository.js';

/** base64url without padding, as WebAuthn's JSON forms write binary values. */
const BASE64URL = /^[A-Za-z0-9_-]*$/;
const base64url = (field: string) => ({ message: `${field} must be base64url` });

/** The longest credential id WebAuthn allows (1023 bytes), in base64url. */
const CREDENTIAL_ID_MAX = 1366;
/** Longest passkey name. */
const PASSKEY_NAME_MAX = 64;

/** authenticatorAttachment, when the browser says. */
const ATTACHMENTS = ['platform', 'cross-platform'];

/** The `response` of a registration (AuthenticatorAttestationResponseJSON). */
export class AttestationResponseDto {
  @ApiProperty({ type: String, maxLength: 4096, description: 'base64url' })
  @IsString()
  @MaxLength(4096)
  @Matches(BASE64URL, base64url('clientDataJSON'))
  clientDataJSON: string;

  @ApiProperty({ type: String, maxLength: 16384, description: 'base64url' })
  @IsString()
  @MaxLength(16384)
  @Matches(BASE64URL, base64url('attestationObject'))
  attestationObject: string;

  @ApiPropertyOptional({ type: String, maxLength: 8192, description: 'base64url' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(8192)
  @Matches(BASE64URL, base64url('authenticatorData'))
  authenticatorData?: string;

  @ApiPropertyOptional({ type: [String], maxItems: 8, example: ['internal', 'hybrid'] })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(8)
  @IsString({ each: true })
  @MaxLength(32, { each: true })
  transports?: string[];

  @ApiPropertyOptional({ type: 'integer', example: -7 })
  @IsOptionalNotNull()
  @IsInt()
  publicKeyAlgorithm?: number;

  @ApiPropertyOptional({ type: String, maxLength: 2048, description: 'base64url' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(2048)
  @Matches(BASE64URL, base64url('publicKey'))
  publicKey?: string;
}

/** The `response` of an assertion (AuthenticatorAssertionResponseJSON). */
export class AssertionResponseDto {
  @ApiProperty({ type: String, maxLength: 4096, description: 'base64url' })
  @IsString()
  @MaxLength(4096)
  @Matches(BASE64URL, base64url('clientDataJSON'))
  clientDataJSON: string;

  @ApiProperty({ type: String, maxLength: 8192, description: 'base64url' })
  @IsString()
  @MaxLength(8192)
  @Matches(BASE64URL, base64url('authenticatorData'))
  authenticatorData: string;

  @ApiProperty({ type: String, maxLength: 2048, description: 'base64url' })
  @IsString()
  @MaxLength(2048)
  @Matches(BASE64URL, base64url('signature'))
  signature: string;

  @ApiPropertyOptional({ type: String, maxLength: 128, description: 'base64url' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(128)
  @Matches(BASE64URL, base64url('userHandle'))
  userHandle?: string;
}

/** The credential id (`id`, `rawId`) of a WebAuthn credential's JSON form. */
const CredentialIdRules = (field: string) =>
  applyDecorators(
    ApiProperty({ type: String, maxLength: CREDENTIAL_ID_MAX, description: 'The credential id, base64url' }),
    IsString(),
    IsNotEmpty(),
    MaxLength(CREDENTIAL_ID_MAX),
    Matches(BASE64URL, base64url(field)),
  );
const CredentialTypeRules = () => applyDecorators(ApiProperty({ enum: ['public-key'] }), IsIn(['public-key']));
const ExtensionResultsRules = () => applyDecorators(ApiProperty({ type: 'object', additionalProperties: true, example: {} }), IsObject());
const AttachmentRules = () => applyDecorators(ApiPropertyOptional({ enum: ATTACHMENTS }), IsOptionalNotNull(), IsIn(ATTACHMENTS));

/** What every credential the browser answers with carries, whatever the ceremony. */
abstract class PasskeyCredentialDto {
  @CredentialIdRules('id')
  id: string;

  @CredentialIdRules('rawId')
  rawId: string;

  @CredentialTypeRules()
  type: 'public-key';

  @ExtensionResultsRules()
  clientExtensionResults: Record<string, unknown>;

  @AttachmentRules()
  authenticatorAttachment?: 'platform' | 'cross-platform';
}

/** A new passkey as the browser answers it (@simplewebauthn/browser's startRegistration: RegistrationResponseJSON). */
export class PasskeyRegistrationCredentialDto extends PasskeyCredentialDto {
  @ApiProperty({ type: AttestationResponseDto })
  @IsObject()
  @ValidateNested()
  @Type(() => AttestationResponseDto)
  response: AttestationResponseDto;
}

/** A passkey's signature as the browser answers it (@simplewebauthn/browser's startAuthentication: AuthenticationResponseJSON). */
export class PasskeyAssertionDto extends PasskeyCredentialDto {
  @ApiProperty({ type: AssertionResponseDto })
  @IsObject()
  @ValidateNested()
  @Type(() => AssertionResponseDto)
  response: AssertionResponseDto;
}

const PASSKEY_NAME_SCHEMA = { type: String, minLength: 1, maxLength: PASSKEY_NAME_MAX, example: 'Laptop (Touch ID)', description: 'A name to tell your passkeys apart' } as const;

const PasskeyNameRules = () =>
  applyDecorators(IsString(), IsNotEmpty(), MaxLength(PASSKEY_NAME_MAX), Matches(/^(?=.*\S)[^\p{Cc}]+$/u, { message: 'name must be visible text without control characters' }));

/** Starting a registration: the current password (as for enrolling an authenticator). */
export class StartPasskeyRegistrationDto {
  @ApiProperty({ type: String, format: 'password', maxLength: 1024, description: 'The account’s current password' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  password: string;
}

export class RegisterPasskeyDto {
  @ApiProperty({ type: PasskeyRegistrationCredentialDto, description: 'What startRegistration answered, as is' })
  @IsObject()
  @ValidateNested()
  @Type(() => PasskeyRegistrationCredentialDto)
  credential: PasskeyRegistrationCredentialDto;

  @ApiPropertyOptional({ ...PASSKEY_NAME_SCHEMA, description: `${PASSKEY_NAME_SCHEMA.description}; default "Passkey" and the date` })
  @IsOptionalNotNull()
  @PasskeyNameRules()
  name?: string;
}

export class RenamePasskeyDto {
  @ApiProperty(PASSKEY_NAME_SCHEMA)
  @PasskeyNameRules()
  name: string;
}

/** The sign-in challenge a passkey is asked to answer (401 MFA_REQUIRED's error.details.challengeToken). */
export class MfaPasskeyOptionsDto {
  @ApiProperty({ type: String, maxLength: 128, example: 'mfa_4Qh0bB3dV2nK8sX1yT6wZ9eR5uI7oP0aS2dF4gH6jK8', description: 'error.details.challengeToken of the MFA_REQUIRED answer' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  challengeToken: string;
}

/** A passwordless sign-in: what startAuthentication answered. */
export class PasskeySignInDto {
  @ApiProperty({ type: PasskeyAssertionDto, description: 'What startAuthentication answered, as is' })
  @IsObject()
  @ValidateNested()
  @Type(() => PasskeyAssertionDto)
  credential: PasskeyAssertionDto;
}

export class PasskeyOptionsDto {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'WebAuthn options in their JSON form: give them as is to @simplewebauthn/browser (startRegistration or startAuthentication, `optionsJSON`)',
    example: { challenge: 'pYh3R0sZ0hQm8Vd0Zy3xqA', rpId: 'todo.example.com', timeout: 300000, userVerification: 'required' },
  })
  options: Record<string, unknown>;

  @ApiProperty({ example: 300, description: 'Seconds the options (their challenge) can be answered, once' })
  expiresIn: number;
}

export class PasskeyDto {
  @ApiProperty({ format: 'uuid' })
  id: string;

  @ApiProperty({ example: 'Laptop (Touch ID)' })
  name: string;

  @ApiProperty({ type: [String], example: ['internal', 'hybrid'], description: 'How the browser reaches the authenticator, as it said at registration' })
  transports: string[];

  @ApiProperty({ type: String, format: 'date-time', example: '2026-11-27T10:00:00.000Z' })
  createdAt: string;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-27T11:00:00.000Z' })
  lastUsedAt: string | null;
}

export function toPasskeyDto(row: PasskeyRow): PasskeyDto {
  return {
    id: row.id,
    name: row.name,
    transports: row.transports,
    createdAt: new Date(row.createdAt).toISOString(),
    lastUsedAt: row.lastUsedAt ? new Date(row.lastUsedAt).toISOString() : null,
  };
}

export class PasskeyListDto {
  @ApiProperty({ type: [PasskeyDto] })
  passkeys: PasskeyDto[];
}

export class PasskeyRegisteredDto {
  @ApiProperty({ type: PasskeyDto })
  passkey: PasskeyDto;

  @ApiProperty({
    type: [String],
    nullable: true,
    example: ['k7m2q-x9p4t', 'a3b8n-r2w6y'],
    description: 'The account’s first second factor only: ten single-use recovery codes, shown this once (else null)',
  })
  recoveryCodes: string[] | null;
}

export class PasskeyRemovedDto {
  @ApiProperty({ example: true })
  removed: boolean;

  @ApiProperty({ example: 0, description: 'Passkeys left' })
  passkeys: number;
}
