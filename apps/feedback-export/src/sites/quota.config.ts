import { readIntVariable, type Env } from '#libs/config';

/**
 * The account's quotas (feedback-export's own settings): how many sites an account may hold, and
 * per site how many question batches and how many bytes of batch text (titles and HTML as
 * stored). Over a quota a create is 403 QUOTA_EXCEEDED; deleting frees it again.
 */
export interface QuotaConfig {
  /** FEEDBACK_MAX_SITES_PER_ACCOUNT (default 25). */
  maxSitesPerAccount: number;
  /** FEEDBACK_MAX_BATCHES_PER_SITE (default 500). */
  maxBatchesPerSite: number;
  /** FEEDBACK_MAX_BATCH_BYTES_PER_SITE (default 10 MiB): UTF-8 bytes of the batches' titles, intro and question HTML. */
  maxBatchBytesPerSite: number;
}

/** Injection token of the validated QuotaConfig (provided by QuotaConfigModule.forRoot). */
export const QUOTA_CONFIG = Symbol('QUOTA_CONFIG');

const MIB = 1024 * 1024;

/** Reads and validates the quota variables; a wrong one throws ConfigError, and the service does not start. */
export function loadQuotaConfig(env: Env = process.env): QuotaConfig {
  return {
    maxSitesPerAccount: readIntVariable(env, 'FEEDBACK_MAX_SITES_PER_ACCOUNT', 25, 1, 100_000),
    maxBatchesPerSite: readIntVariable(env, 'FEEDBACK_MAX_BATCHES_PER_SITE', 500, 1, 1_000_000),
    maxBatchBytesPerSite: readIntVariable(env, 'FEEDBACK_MAX_BATCH_BYTES_PER_SITE', 10 * MIB, 64 * 1024, 64 * 1024 * MIB),
  };
}
