import { Injectable } from '@nestjs/common';
import { CredentialRevocations } from '#libs/identity';
import { AppException, ErrorCode, validationException } from '#libs/common';
import { generateApiKey } from '../api-access/api-key.format.js';
import { SecurityActivityService } from '#libs/identity';
import { ApiKeysRepository } from './api-keys.repository.js';
import { ApiKeyListDto, ApiKeyRevokedDto, ApiKeySecretDto, CreateApiKeyDto, CurrentApiKeyDto, RotateApiKeyDto, toApiKeyDto } from './dto/api-key.dto.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Keys that still work (not revoked, not expired) one account may hold: each carries its own rate-limit budget. */
export const MAX_ACTIVE_API_KEYS = 20;

/**
 * The expiry a request asks for: a Date, null (never expires), or undefined (not given).
 * expiresAt and expiresInDays (and clearExpiry) exclude each other; expiresAt must be in the future.
 */
function requestedExpiry(input: { expiresAt?: string | null; expiresInDays?: number | null; clearExpiry?: boolean }, now = new Date()): Date | null | undefined {
  const given = [
    input.expiresAt !== undefined && 'expiresAt',
    input.expiresInDays !== undefined && input.expiresInDays !== null && 'expiresInDays',
    input.clearExpiry === true && 'clearExpiry',
  ].filter((name): name is string => Boolean(name));
  if (given.length > 1) {
    throw validationException(
      given.map((field) => ({ field, messages: [`give only one of ${given.join(', ')}`] })),
      `${given.join(' and ')} cannot be combined`,
    );
  }
  if (input.clearExpiry === true || input.expiresAt === null) return null;
  if (typeof input.expiresAt === 'string') {
    const at = new Date(input.expiresAt);
    if (Number.isNaN(at.getTime())) throw validationException([{ field: 'expiresAt', messages: ['must be a valid date-time'] }]);
    if (at.getTime() <= now.getTime()) throw validationException([{ field: 'expiresAt', messages: ['must be in the future'] }], 'expiresAt must be in the future');
    return at;
  }
  if (typeof input.expiresInDays === 'number') return new Date(now.getTime() + input.expiresInDays * DAY_MS);
  return undefined;
}

/** API keys: created, listed, revoked and rotated by their owner (JWT). The secret is returned once and stored as SHA-256. */
@Injectable()
export class ApiKeysService {
  constructor(
    private readonly repository: ApiKeysRepository,
    private readonly revocations: CredentialRevocations,
    private readonly activity: SecurityActivityService,
  ) {}

  async list(userId: string): Promise<ApiKeyListDto> {
    return { keys: (await this.repository.list(userId)).map(toApiKeyDto) };
  }

  async create(userId: string, request: CreateApiKeyDto): Promise<ApiKeySecretDto> {
    const expiresAt = requestedExpiry(request) ?? null;
    const generated = generateApiKey();
    const key = await this.repository.insertWithinLimit(userId, request.name.trim(), generated, expiresAt, MAX_ACTIVE_API_KEYS);
    if (!key) throw new AppException(ErrorCode.CONFLICT, `An account may hold at most ${MAX_ACTIVE_API_KEYS} active API keys; revoke one before creating another`);
    await this.activity.recordAfter(userId, 'api_key_created', { details: { keyId: key.id, name: key.name } });
    return { apiKey: generated.key, key: toApiKeyDto(key) };
  }

  async revoke(userId: string, keyId: string): Promise<ApiKeyRevokedDto> {
    if (!(await this.repository.revoke(userId, keyId))) throw new AppException(ErrorCode.NOT_FOUND, 'API key not found');
    await this.activity.recordAfter(userId, 'api_key_revoked', { details: { keyId } });
    await this.revocations.announce(userId);
    return { revoked: true };
  }

  /** New secret for the same record (same id and name); the previous secret stops working at once. */
  async rotate(userId: string, keyId: string, request: RotateApiKeyDto): Promise<ApiKeySecretDto> {
    const now = new Date();
    const requested = requestedExpiry(request, now);
    const generated = generateApiKey();
    const key = await this.repository.transaction(async (tx) => {
      const current = await this.repository.lockOne(tx, userId, keyId);
      if (!current) throw new AppException(ErrorCode.NOT_FOUND, 'API key not found');
      if (current.revokedAt) throw new AppException(ErrorCode.CONFLICT, 'A revoked API key cannot be rotated; create a new one');
      const expiresAt = requested === undefined ? current.expiresAt : requested;
      if (expiresAt && new Date(expiresAt).getTime() <= now.getTime()) {
        throw validationException(
          [{ field: 'expiresAt', messages: ['the key has expired: give a new expiresAt or expiresInDays, or clearExpiry'] }],
          'The key has expired; rotate it with a new expiry',
        );
      }
      await this.activity.record(tx, userId, 'api_key_rotated', { details: { keyId, name: current.name } });
      return this.repository.replaceSecret(tx, userId, keyId, generated, expiresAt);
    });
    await this.revocations.announce(userId);
    return { apiKey: generated.key, key: toApiKeyDto(key) };
  }

  /** The record of the key the request authenticated with. */
  async current(userId: string, keyId: string): Promise<CurrentApiKeyDto> {
    const key = await this.repository.findOne(userId, keyId);
    if (!key) throw new AppException(ErrorCode.INVALID_API_KEY, 'The API key is invalid, revoked or expired');
    return { key: toApiKeyDto(key) };
  }
}
