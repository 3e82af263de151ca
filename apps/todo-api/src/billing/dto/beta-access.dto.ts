import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsOptional, IsUUID, MaxLength } from 'class-validator';

/** Names the user by exactly one of `userId` or `email`. */
export class BetaAccessRequestDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'The user; give exactly one of userId or email' })
  @IsOptional()
  @IsUUID()
  userId?: string;

  @ApiPropertyOptional({ format: 'email', description: 'The user; give exactly one of userId or email (compared case-insensitively)' })
  @IsOptional()
  @IsEmail()
  @MaxLength(320)
  email?: string;
}

export class BetaAccessResultDto {
  @ApiProperty({ format: 'uuid' })
  userId: string;

  @ApiProperty()
  isBetaLifetime: boolean;
}
