export * from './oauth-access-token.verifier.js';
export * from './oauth-access.repository.js';
export * from './oauth-signing-keys.service.js';
export * from './protected-resource.js';
export * from './account-oauth-grants.service.js';
export * from './oauth-resource.guard.js';
export * from './protected-resource.controller.js';
