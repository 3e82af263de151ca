import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Allow, IsBoolean, IsEmail, IsNotEmpty, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { IsOptionalNotNull } from '#libs/common';
import { PasskeyAssertionDto } from '../../passkeys/dto/passkey.dto.js';
import { CurrentFactorCode, CurrentFactorPasskey } from '../../second-factor/dto/second-factor.dto.js';
import { IsPassword, PASSWORD_SCHEMA } from './password.validator.js';

export class SignupDto {
  @ApiProperty({ format: 'email', maxLength: 254, description: 'Compared case-insensitively' })
  @IsEmail()
  @MaxLength(254)
  email: string;

  @ApiProperty(PASSWORD_SCHEMA)
  @IsPassword()
  password: string;

  @ApiPropertyOptional({ ...PASSWORD_SCHEMA, description: 'When present it must equal password' })
  @IsOptional()
  @IsPassword()
  passwordConfirm?: string;

  @ApiPropertyOptional({ example: 'ada',
    pattern: '^[A-Za-z0-9_.-]{3,32}$',
    description: 'Unique, compared case-insensitively. When absent it is derived from the e-mail (made unique).',
  })
  @IsOptional()
  @IsString()
  @MaxLength(32, { message: 'username must be 3 to 32 letters, digits, _ . or -' })
  @Matches(/^[A-Za-z0-9_.-]{3,32}$/, { message: 'username must be 3 to 32 letters, digits, _ . or -' })
  username?: string;

  @ApiPropertyOptional({ example: '0.zq3mX0k9pL2sT8wR1yU6', maxLength: 4096, description: 'Bot-challenge (Turnstile) response; required only when the bot challenge is enabled' })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  turnstileToken?: string;
}

export class LoginDto {
  @ApiProperty({ format: 'email', maxLength: 254 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(254)
  email: string;

  @ApiProperty({ type: String, format: 'password', maxLength: 1024 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  password: string;
}

export class RefreshDto {
  @ApiProperty({ example: 'Vq3mX0k9pL2sT8wR1yU6zA4bC7dE5fG3hJ0kM2nP9qS', description: 'The refresh token from signup, login or the previous refresh' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  refreshToken: string;
}

export class LogoutDto {
  @ApiPropertyOptional({ example: 'Vq3mX0k9pL2sT8wR1yU6zA4bC7dE5fG3hJ0kM2nP9qS', description: 'Ends the session holding this refresh token (it must be one of yours)' })
  @IsOptionalNotNull()
  @IsString()
  @MaxLength(512)
  refreshToken?: string;

  @ApiPropertyOptional({ default: false, description: 'Ends every session of the account' })
  @IsOptionalNotNull()
  @IsBoolean()
  allSessions?: boolean;
}

export class ForgotPasswordDto {
  @ApiProperty({ format: 'email', maxLength: 254 })
  @IsEmail()
  @MaxLength(254)
  email: string;
}

export class VerifyResetCodeDto {
  @ApiProperty({ format: 'email', maxLength: 254 })
  @IsEmail()
  @MaxLength(254)
  email: string;

  @ApiProperty({ example: '042917', description: 'The 6-digit code from the e-mail' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(32)
  code: string;
}

export class ResetPasswordDto {
  /** Checked by the service: a missing or malformed token is 400 INVALID_TOKEN, not VALIDATION_ERROR. */
  @ApiProperty({ example: 'rt_3mX0k9pL2sT8wR1yU6zA4bC7dE5fG3hJ0kM2nP9qS', type: String, description: 'The reset token from verify-reset-code (single use, 15 minutes)' })
  @Allow()
  token: unknown;

  @ApiProperty(PASSWORD_SCHEMA)
  @IsPassword()
  password: string;

  @ApiProperty(PASSWORD_SCHEMA)
  @IsPassword()
  passwordConfirm: string;
}

export class ChangePasswordDto {
  @ApiProperty({ type: String, format: 'password', maxLength: 1024 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  currentPassword: string;

  @ApiProperty(PASSWORD_SCHEMA)
  @IsPassword()
  newPassword: string;

  @ApiProperty(PASSWORD_SCHEMA)
  @IsPassword()
  newPasswordConfirm: string;

  @CurrentFactorCode()
  code?: string;

  @CurrentFactorPasskey()
  passkey?: PasskeyAssertionDto;
}
