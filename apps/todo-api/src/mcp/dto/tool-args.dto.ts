import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';

/** The `id` argument of get_todo, update_todo and delete_todo: the same rule as the REST path id. */
export class TodoIdArgs {
  @IsInt()
  @Min(1)
  @Max(2147483647)
  id: number;
}

/** create_todo's retry key, the MCP form of the Idempotency-Key header (its format is checked by TodosService). */
export class IdempotencyArgs {
  @IsOptional()
  @IsString()
  idempotencyKey?: string;
}
