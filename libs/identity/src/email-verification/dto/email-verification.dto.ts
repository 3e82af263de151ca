import { ApiProperty } from '@nestjs/swagger';
import { IsEmail, IsNotEmpty, IsString, MaxLength } from 'class-validator';

/** A token from a verification, change or revert mail. */
export class EmailTokenDto {
  @ApiProperty({ example: 'q3mX0k9pL2sT8wR1yU6zA4bC7dE5fG3hJ0kM2nP9qSx', maxLength: 128, description: 'The code from the e-mail' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  token: string;
}

export class ChangeEmailDto {
  @ApiProperty({ format: 'email', maxLength: 254, example: 'ada.new@example.com', description: 'The new address; compared case-insensitively' })
  @IsEmail()
  @MaxLength(254)
  email: string;

  @ApiProperty({ type: String, format: 'password', maxLength: 1024, description: 'The account’s current password' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  currentPassword: string;
}
