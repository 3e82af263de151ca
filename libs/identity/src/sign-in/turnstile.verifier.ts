import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppException, ErrorCode } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { outgoingCall } from '#libs/tracing';

/** How long signup waits for the bot-check service before failing closed. */
const VERIFY_TIMEOUT_MS = 5000;

/**
 * The signup bot check (Cloudflare Turnstile siteverify), on only when TURNSTILE_SECRET_KEY
 * is set. A missing or refused token is 400 BOT_CHALLENGE_FAILED; when the verifier cannot
 * be reached or answers with an error, signup fails closed with 503 SERVICE_UNAVAILABLE
 * (retryable: it says nothing about the client's token).
 */
@Injectable()
export class TurnstileVerifier {
  private readonly logger = new Logger(TurnstileVerifier.name);

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get enabled(): boolean {
    return Boolean(this.config.turnstileSecretKey);
  }

  async verify(token: string | undefined, remoteIp: string | null): Promise<void> {
    const secret = this.config.turnstileSecretKey;
    if (!secret) return;
    if (!token) throw new AppException(ErrorCode.BOT_CHALLENGE_FAILED, 'The bot challenge is required: send turnstileToken');
    const form = new URLSearchParams({ secret, response: token });
    if (remoteIp) form.set('remoteip', remoteIp);
    let body: { success?: unknown } | undefined;
    try {
      const url = new URL(this.config.turnstileVerifyUrl);
      const headers: Record<string, string> = {};
      const response = await outgoingCall('POST', url.hostname, Number(url.port) || (url.protocol === 'https:' ? 443 : 80), headers, () =>
        fetch(url, { method: 'POST', body: form, headers, signal: AbortSignal.timeout(VERIFY_TIMEOUT_MS) }),
      );
      if (!response.ok) throw new Error(`verifier answered HTTP ${response.status}`);
      body = (await response.json()) as { success?: unknown };
    } catch (error) {
      this.logger.warn({ err: (error as Error).message }, 'Bot-challenge verifier unavailable; signup refused');
      throw new AppException(ErrorCode.SERVICE_UNAVAILABLE, 'The bot challenge could not be checked right now; try again shortly');
    }
    if (body?.success !== true) throw new AppException(ErrorCode.BOT_CHALLENGE_FAILED, 'The bot challenge failed; solve it again');
  }
}
