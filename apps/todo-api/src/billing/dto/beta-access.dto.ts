import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsEmail, IsOptional, IsUUID, MaxLength } from 'class-validator';

/** Names the user by exactly one of `userId` or `email`. */
export class BetaAccessRequestDto {
  @ApiPropertyOptional({ format: 'uuid', description: 'The user; give exactly one of userId or email' })
  @IsOptional()
  @MaxLength(36, { message: 'userId must be a UUID' })
  @IsUUID()
  userId?: string;

  @ApiPropertyOptional({ format: 'email', description: 'The user; give exactly one of userId or email (compared case-insensitively)' })
  @IsOptional()
  @IsEmail()
  @MaxLength(320)
  email?: string;
}

/** The OpenAPI shapes of BetaAccessRequestDto: `oneOf` these two says "exactly one" (both or neither matches no branch). */
export class BetaAccessByUserIdDto {
  @ApiProperty({ format: 'uuid', example: '3b241101-e2bb-4255-8caf-4136c566a962' })
  userId: string;
}

export class BetaAccessByEmailDto {
  @ApiProperty({ format: 'email', maxLength: 320, example: 'ada@example.com', description: 'Compared case-insensitively' })
  email: string;
}

export class BetaAccessResultDto {
  @ApiProperty({ format: 'uuid' })
  userId: string;

  @ApiProperty({ example: true })
  isBetaLifetime: boolean;
}
