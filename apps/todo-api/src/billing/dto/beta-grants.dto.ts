import { ApiProperty } from '@nestjs/swagger';
import { PagedQuery } from '#libs/common';
import type { BetaAccessAction, BetaAuditRow, BetaGrantRow } from '../billing.repository.js';

/** Paging of GET /api/v1/billing/beta, and how much audit history each account carries. */
export const BETA_GRANTS_PAGE = { defaultLimit: 50, maxLimit: 100, historyPerAccount: 50 } as const;

export class ListBetaGrantsQuery extends PagedQuery(BETA_GRANTS_PAGE) {}

export class BetaAuditEntryDto {
  @ApiProperty({ enum: ['grant', 'revoke'], example: 'grant', description: 'The admin route called: POST /api/v1/billing/beta/grant or /revoke' })
  action: BetaAccessAction;

  @ApiProperty({ example: true, description: 'Whether the call changed anything (false: a repeated grant of an account that already held beta)' })
  changed: boolean;

  @ApiProperty({ type: String, nullable: true, example: '5f0c6f2e-3c1a-4d7e-9b8a-2f4e6d8c0a1b', description: 'The X-Request-Id of the admin call (find it in the access log)' })
  requestId: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

export class BetaGrantDto {
  @ApiProperty({ format: 'uuid' })
  userId: string;

  @ApiProperty({ format: 'email', example: 'ada@example.com' })
  email: string;

  @ApiProperty({ example: true, description: 'Whether the account holds lifetime beta now' })
  isBetaLifetime: boolean;

  @ApiProperty({
    format: 'date-time',
    description: 'The newest grant that changed anything (the order of the list); for beta given outside the admin routes, when the subscription record last changed',
  })
  grantedAt: string;

  @ApiProperty({ type: [BetaAuditEntryDto], description: `The audit entries of the admin grant and revoke calls, newest first (at most the newest ${BETA_GRANTS_PAGE.historyPerAccount})` })
  history: BetaAuditEntryDto[];
}

export class BetaGrantPageDto {
  @ApiProperty({ type: [BetaGrantDto], description: 'Newest grant first' })
  grants: BetaGrantDto[];

  @ApiProperty({ type: String, nullable: true, example: 'c1.eyJ2IjoxfQ.c2lnbmF0dXJl', description: 'Pass as `cursor` for the next (older) page; null at the end' })
  nextCursor: string | null;
}

function toBetaAuditEntryDto(row: BetaAuditRow): BetaAuditEntryDto {
  return { action: row.action, changed: row.changed, requestId: row.requestId, createdAt: row.createdAt.toISOString() };
}

export function toBetaGrantDto(row: BetaGrantRow, history: readonly BetaAuditRow[]): BetaGrantDto {
  return {
    userId: row.userId,
    email: row.email,
    isBetaLifetime: row.isBetaLifetime,
    grantedAt: row.grantedAt.toISOString(),
    history: history.map(toBetaAuditEntryDto),
  };
}
