import { errors as joseErrors, jwtVerify } from 'jose';
import { isEmail } from 'class-validator';
import { AppException, ErrorCode } from '#libs/common';
import type { Reporter } from '../feedback/feedback.repository.js';

/** The bounds of a signed reporter identity (README, "Every limit"). */
export const REPORTER_LIMITS = { id: 128, email: 254, name: 128, tokenChars: 4096, lifetimeSeconds: 24 * 3600 } as const;

/** validator.js throws on a lone UTF-16 surrogate: that is not an address either. */
function looksLikeEmail(value: string): boolean {
  try {
    return isEmail(value);
  } catch {
    return false;
  }
}

function refused(message: string): AppException {
  return new AppException(ErrorCode.IDENTITY_TOKEN_INVALID, message);
}

function boundedString(value: unknown, max: number): value is string {
  return typeof value === 'string' && value.trim() !== '' && value.length <= max;
}

/**
 * The reporter a host's server vouched for: a JWT signed HS256 with the site's identity secret, carrying `sub`
 * (the host's user id), optional `email` and `name`, and `exp` (at most 24 h ahead; jose refuses it once past).
 * Anything else (another key, another algorithm, no or far `exp`, claims out of bounds) is 400 IDENTITY_TOKEN_INVALID.
 */
export async function verifyReporterToken(token: string, secret: string, now: Date = new Date()): Promise<Reporter> {
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(token, new TextEncoder().encode(secret), { algorithms: ['HS256'], requiredClaims: ['exp', 'sub'], currentDate: now }));
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) throw refused('The reporter token has expired; sign a new one on your server');
    if (error instanceof joseErrors.JWTClaimValidationFailed) throw refused(`The reporter token is missing the claim "${error.claim}"`);
    throw refused("The reporter token is not a JWT signed (HS256) with this site's identity secret");
  }
  if (typeof payload.exp !== 'number' || payload.exp - now.getTime() / 1000 > REPORTER_LIMITS.lifetimeSeconds) {
    throw refused('The reporter token must expire within 24 hours (set exp)');
  }
  if (!boundedString(payload.sub, REPORTER_LIMITS.id)) throw refused(`The reporter token's sub (the user id) must be 1..${REPORTER_LIMITS.id} characters`);
  const reporter: Reporter = { id: payload.sub };
  if (payload.email !== undefined) {
    if (!boundedString(payload.email, REPORTER_LIMITS.email) || !looksLikeEmail(payload.email)) throw refused("The reporter token's email must be an e-mail address");
    reporter.email = payload.email;
  }
  if (payload.name !== undefined) {
    if (!boundedString(payload.name, REPORTER_LIMITS.name)) throw refused(`The reporter token's name must be 1..${REPORTER_LIMITS.name} characters`);
    reporter.name = payload.name;
  }
  return reporter;
}
