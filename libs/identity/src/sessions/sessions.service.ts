import { Injectable, Logger } from '@nestjs/common';
import { CredentialRevocations } from '../accounts/credential-revocations.service.js';
import { AppException, ErrorCode } from '#libs/common';
import type { Transaction } from '#libs/database';
import { SecurityActivityService } from '../security-activity/security-activity.service.js';
import { SessionListDto, toSessionDto } from './dto/session.dto.js';
import {
  generateRefreshToken,
  hashRefreshToken,
  hashRetryKey,
  openSuccessor,
  REFRESH_RETRY_GRACE_SECONDS,
  sealSuccessor,
} from './refresh-token.js';
import { SessionsRepository } from './sessions.repository.js';

export interface ClientInfo {
  ipAddress: string | null;
  userAgent: string | null;
}

export interface IssuedRefresh {
  userId: string;
  sessionId: string;
  refreshToken: string;
}

/** Longest refresh token we bother to hash; ours are 43 characters. */
const MAX_REFRESH_TOKEN_LENGTH = 512;

function invalidRefreshToken(): AppException {
  return new AppException(ErrorCode.INVALID_TOKEN, 'The refresh token is invalid, expired or revoked');
}

/** Refresh-token sessions: one per sign-in, rotated on every refresh, revocable. */
@Injectable()
export class SessionsService {
  private readonly logger = new Logger(SessionsService.name);

  constructor(
    private readonly sessions: SessionsRepository,
    private readonly revocations: CredentialRevocations,
    private readonly activity: SecurityActivityService,
  ) {}

  /** Opens a session for a sign-in, inside the caller's transaction when there is one. */
  async start(tx: Transaction | undefined, userId: string, client: ClientInfo): Promise<IssuedRefresh> {
    const refreshToken = generateRefreshToken();
    const sessionId = await this.sessions.create(tx, {
      userId,
      refreshTokenHash: hashRefreshToken(refreshToken),
      userAgent: client.userAgent,
      ipAddress: client.ipAddress,
    });
    return { userId, sessionId, refreshToken };
  }

  /** Whether the account signed in (or up) before from the device of this session: the same User-Agent on another of its sessions. */
  knownDevice(userId: string, sessionId: string, client: ClientInfo): Promise<boolean> {
    return this.sessions.otherSessionWithUserAgent(userId, client.userAgent, sessionId);
  }

  /**
   * Exchanges a refresh token for its successor in the same session. Presenting a token
   * that has already been rotated out is reuse: the session is revoked. The one exception
   * is a retry of the same refresh (same Idempotency-Key) within the grace while the
   * successor is still unused: it receives the same successor again, so there is never
   * more than one live token per session.
   */
  async refresh(refreshToken: string, retryKey?: string): Promise<IssuedRefresh> {
    if (refreshToken.length === 0 || refreshToken.length > MAX_REFRESH_TOKEN_LENGTH) throw invalidRefreshToken();
    const presentedHash = hashRefreshToken(refreshToken);
    // Two passes at most: a rotation lost to a concurrent one is judged again as a retired token.
    for (let pass = 0; pass < 2; pass++) {
      const current = await this.sessions.findByCurrentHash(presentedHash);
      if (current) {
        if (current.revokedAt || new Date(current.expiresAt).getTime() <= Date.now()) throw invalidRefreshToken();
        const successor = generateRefreshToken();
        const userId = await this.sessions.rotate({
          sessionId: current.id,
          oldHash: presentedHash,
          newHash: hashRefreshToken(successor),
          retryKeyHash: retryKey ? hashRetryKey(retryKey) : null,
          successorSealed: retryKey ? sealSuccessor(refreshToken, retryKey, successor) : null,
        });
        if (userId) return { userId, sessionId: current.id, refreshToken: successor };
        continue;
      }
      const retired = await this.sessions.findRetired(presentedHash);
      if (!retired) throw invalidRefreshToken();
      const replayed = await this.replayWithinGrace(retired, refreshToken, retryKey);
      if (replayed) return replayed;
      await this.sessions.revoke(retired.sessionId);
      await this.revocations.announce(retired.userId);
      this.logger.warn({ sessionId: retired.sessionId, userId: retired.userId }, 'Refresh token reuse detected: session revoked');
      throw invalidRefreshToken();
    }
    throw invalidRefreshToken();
  }

  private async replayWithinGrace(
    retired: { sessionId: string; userId: string; successorHash: string; retryKeyHash: string | null; successorSealed: string | null; ageMs: number },
    refreshToken: string,
    retryKey: string | undefined,
  ): Promise<IssuedRefresh | undefined> {
    if (!retryKey || !retired.retryKeyHash || !retired.successorSealed) return undefined;
    if (retired.retryKeyHash !== hashRetryKey(retryKey) || retired.ageMs > REFRESH_RETRY_GRACE_SECONDS * 1000) return undefined;
    const successor = openSuccessor(refreshToken, retryKey, retired.successorSealed);
    if (!successor || hashRefreshToken(successor) !== retired.successorHash) return undefined;
    if (!(await this.sessions.isLiveWithToken(retired.sessionId, retired.successorHash))) return undefined;
    return { userId: retired.userId, sessionId: retired.sessionId, refreshToken: successor };
  }

  async list(userId: string): Promise<SessionListDto> {
    const now = new Date();
    return { sessions: (await this.sessions.listForUser(userId)).map((session) => toSessionDto(session, now)) };
  }

  /** Revokes one of the user's sessions (idempotent); another user's session is 404 like a missing one. */
  async revoke(userId: string, sessionId: string): Promise<{ revoked: boolean }> {
    if (!(await this.sessions.revokeOwned(userId, sessionId))) throw new AppException(ErrorCode.NOT_FOUND, 'No such session');
    await this.activity.recordAfter(userId, 'session_revoked', { details: { sessionId } });
    await this.revocations.announce(userId);
    return { revoked: true };
  }

  /**
   * Revokes every session of the user. Inside the caller's transaction (`tx`), the caller
   * announces the change after its commit (CredentialRevocations); without one, this does.
   */
  async revokeAll(tx: Transaction | undefined, userId: string): Promise<number> {
    const count = await this.sessions.revokeAllForUser(tx, userId);
    // Inside a transaction it is part of a password change or reset, whose own entry reports it.
    if (!tx) await this.activity.recordAfter(userId, 'session_revoked', { details: { allSessions: true, count } });
    if (!tx) await this.revocations.announce(userId);
    return count;
  }

  /** Revokes the user's session holding this refresh token; false when it is not theirs or not current. */
  async revokeByRefreshToken(userId: string, refreshToken: string): Promise<boolean> {
    if (refreshToken.length === 0 || refreshToken.length > MAX_REFRESH_TOKEN_LENGTH) return false;
    const revoked = await this.sessions.revokeOwnedByToken(userId, hashRefreshToken(refreshToken));
    if (revoked) await this.activity.recordAfter(userId, 'session_revoked', { details: { byRefreshToken: true } });
    if (revoked) await this.revocations.announce(userId);
    return revoked;
  }
}
