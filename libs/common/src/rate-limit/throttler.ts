/**
 * @nestjs/throttler, loaded once for the whole code base.
 *
 * It is CommonJS and require()s Nest's ES modules, which Node 22.12+ allows. Jest's ESM mode
 * resolves a static `import` of a CommonJS package while it is still linking the import graph,
 * when @nestjs/common is not evaluated yet, and its require(esm) then refuses it ("in a cycle").
 * A dynamic import runs after Nest has evaluated, under Jest and Node alike; the top-level await
 * makes every importer of this file wait for it.
 */
const throttler = await import('@nestjs/throttler');

export const { ThrottlerGuard, ThrottlerModule, Throttle, InjectThrottlerOptions } = throttler;
export type { ThrottlerLimitDetail, ThrottlerModuleOptions, ThrottlerRequest, ThrottlerStorage } from '@nestjs/throttler';
/** What ThrottlerStorage.increment answers (the package does not export the name). */
export type ThrottlerStorageRecord = Awaited<ReturnType<import('@nestjs/throttler').ThrottlerStorage['increment']>>;
