import { CreateAccounts1763700000000 } from './1763700000000-CreateAccounts.js';

/**
 * Every migration, in order. Listed explicitly (not globbed) so the same list works from
 * compiled output, from ts sources under Jest, and for the TypeORM CLI.
 */
export const migrations = [CreateAccounts1763700000000];
