import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsNotEmpty, IsObject, IsString, Matches, MaxLength, ValidateNested } from 'class-validator';
import { IsOptionalNotNull } from '#libs/common';
import { PasskeyAssertionDto } from '../../passkeys/dto/passkey.dto.js';
import type { TotpFactorRow } from '../second-factor.repository.js';

const CODE_SCHEMA = { type: String, pattern: '^[0-9]{6}$', example: '492039', description: 'The 6-digit code the authenticator app shows now' } as const;
const RECOVERY_CODE_SCHEMA = { type: String, maxLength: 64, example: 'k7m2q-x9p4t', description: 'One of the recovery codes (case, spaces and dashes do not matter); each works once' } as const;

/**
 * The optional `code` of a sensitive change of the account (password change, deletion): needed only when the account
 * has a second factor (then 401 MFA_CODE_REQUIRED without it); the authenticator's current code or an unused recovery code.
 */
export function CurrentFactorCode(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: String,
      maxLength: 64,
      example: '492039',
      description: 'Only for an account with a second factor (401 MFA_CODE_REQUIRED without it): the authenticator’s current code, or an unused recovery code (used up)',
    }),
    IsOptionalNotNull(),
    IsString(),
    IsNotEmpty(),
    MaxLength(64),
  );
}

/**
 * The optional `passkey` of the same sensitive changes: instead of `code`, an assertion of one of the account's passkeys
 * over the options of POST /api/v1/account/passkey-check-options.
 */
export function CurrentFactorPasskey(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      type: PasskeyAssertionDto,
      description: 'Instead of `code`, for an account with a passkey: what startAuthentication answered for the options of POST /api/v1/account/passkey-check-options (used once)',
    }),
    IsOptionalNotNull(),
    IsObject(),
    ValidateNested(),
    Type(() => PasskeyAssertionDto),
  );
}

/** `code` of a body taking exactly one of a TOTP code or a recovery code (a fresh factor check, the sign-in challenge). */
function EitherTotpCode(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ ...CODE_SCHEMA, description: 'The authenticator’s current code; give exactly one of code or recoveryCode' }),
    IsOptionalNotNull(),
    IsString(),
    MaxLength(6, { message: 'code must be 6 digits' }),
    Matches(/^[0-9]{6}$/, { message: 'code must be 6 digits' }),
  );
}

/** `recoveryCode` of the same bodies. */
function EitherRecoveryCode(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ ...RECOVERY_CODE_SCHEMA, description: `${RECOVERY_CODE_SCHEMA.description}; give exactly one of code or recoveryCode` }),
    IsOptionalNotNull(),
    IsString(),
    MaxLength(64),
  );
}

/** A current password, for starting enrolment. */
export class StartTotpDto {
  @ApiProperty({ type: String, format: 'password', maxLength: 1024, description: 'The account’s current password' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  password: string;
}

export class ConfirmTotpDto {
  @ApiProperty(CODE_SCHEMA)
  @IsString()
  @MaxLength(6, { message: 'code must be 6 digits' })
  @Matches(/^[0-9]{6}$/, { message: 'code must be 6 digits' })
  code: string;
}

/** A fresh factor check: the current password and exactly one of `code`, `recoveryCode` or `passkey`. */
export class FreshFactorCheckDto {
  @ApiProperty({ type: String, format: 'password', maxLength: 1024, description: 'The account’s current password' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  password: string;

  @EitherTotpCode()
  code?: string;

  @EitherRecoveryCode()
  recoveryCode?: string;

  @ApiPropertyOptional({
    type: PasskeyAssertionDto,
    description: 'Instead of a code: what @simplewebauthn/browser’s startAuthentication answered for the options of POST /api/v1/account/passkey-check-options (used once)',
  })
  @IsOptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => PasskeyAssertionDto)
  passkey?: PasskeyAssertionDto;
}

/** The second step of a sign-in that answered 401 MFA_REQUIRED. */
export class MfaVerifyDto {
  @ApiProperty({ type: String, maxLength: 128, example: 'mfa_4Qh0bB3dV2nK8sX1yT6wZ9eR5uI7oP0aS2dF4gH6jK8', description: 'error.details.challengeToken of the MFA_REQUIRED answer' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  challengeToken: string;

  @EitherTotpCode()
  code?: string;

  @EitherRecoveryCode()
  recoveryCode?: string;

  @ApiPropertyOptional({
    type: PasskeyAssertionDto,
    description: 'Instead of a code: what @simplewebauthn/browser’s startAuthentication answered for the options of POST /api/v1/auth/mfa/passkey-options',
  })
  @IsOptionalNotNull()
  @IsObject()
  @ValidateNested()
  @Type(() => PasskeyAssertionDto)
  passkey?: PasskeyAssertionDto;
}

export class TotpEnrolmentDto {
  @ApiProperty({ example: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', description: 'The shared secret (Base32), for typing into an authenticator app by hand' })
  secret: string;

  @ApiProperty({ example: 'otpauth://totp/Todo%20%26%20Feedback:ada%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Todo%20%26%20Feedback', description: 'The otpauth:// URI an authenticator app reads' })
  otpauthUri: string;

  @ApiProperty({ example: 'data:image/png;base64,iVBORw0KGgo…', description: 'The URI as a QR code (PNG data URL), to show for scanning' })
  qrCodeDataUrl: string;

  @ApiProperty({ example: false, description: 'Always false here: the factor stays pending until confirmed with a first code' })
  confirmed: boolean;
}

export class RecoveryCodesDto {
  @ApiProperty({ type: [String], example: ['k7m2q-x9p4t', 'a3b8n-r2w6y'], description: 'Ten single-use recovery codes, shown this once: store them somewhere safe' })
  recoveryCodes: string[];
}

export class MfaStatusDto {
  @ApiProperty({ example: true, description: 'Whether sign-in asks for a second factor (a confirmed authenticator)' })
  totpEnabled: boolean;

  @ApiProperty({ example: false, description: 'An enrolment started and not yet confirmed' })
  totpPending: boolean;

  @ApiProperty({ type: String, format: 'date-time', nullable: true, example: '2026-11-27T10:00:00.000Z' })
  totpConfirmedAt: string | null;

  @ApiProperty({ example: 10, description: 'Recovery codes not used yet' })
  recoveryCodesRemaining: number;

  @ApiProperty({ example: 1, description: 'Passkeys registered (GET /api/v1/account/passkeys); any makes sign-in ask for a second factor too' })
  passkeys: number;
}

export function toMfaStatusDto(factor: TotpFactorRow | null, passkeys: number, recoveryCodesRemaining: number): MfaStatusDto {
  return {
    totpEnabled: factor?.confirmedAt != null,
    totpPending: factor !== null && factor.confirmedAt === null,
    totpConfirmedAt: factor?.confirmedAt ? new Date(factor.confirmedAt).toISOString() : null,
    recoveryCodesRemaining: factor?.confirmedAt || passkeys > 0 ? recoveryCodesRemaining : 0,
    passkeys,
  };
}

export class MfaDisabledDto {
  @ApiProperty({ example: false })
  totpEnabled: boolean;
}
