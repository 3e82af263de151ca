import { SetMetadata } from '@nestjs/common';

const WITHOUT_DATABASE = 'without-database';

/**
 * Marks a route (method or controller) that never answers the database's outage with 503
 * SERVICE_UNAVAILABLE: it does not use the database (a static page, the service index, the
 * liveness probe), or it reports the outage as its own answer (the status and readiness checks'
 * 503 SERVICE_DEGRADED). Every other route is taken to need the database, and its OpenAPI
 * operation documents 503 SERVICE_UNAVAILABLE with Retry-After (see openapi-finish.ts).
 */
export const WithoutDatabase = (): MethodDecorator & ClassDecorator => SetMetadata(WITHOUT_DATABASE, true);

/** Whether a route needs the database (method first, then controller): yes unless @WithoutDatabase. */
export function needsDatabase(handler: object, controller: object): boolean {
  return !(Reflect.getMetadata(WITHOUT_DATABASE, handler) ?? Reflect.getMetadata(WITHOUT_DATABASE, controller) ?? false);
}
