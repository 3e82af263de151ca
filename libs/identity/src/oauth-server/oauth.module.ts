import { Module, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import express from 'express';
import { AuthModule } from '../sign-in/auth.module.js';
import { ConnectedAppsController } from './connected-apps.controller.js';
import { ConnectedAppsService } from './connected-apps.service.js';
import { OAuthConsentSitesRepository } from '../../../../apps/feedback-export/src/sites/oauth-consent-sites.repository.js';
import { OAuthInteractionController } from './oauth-interaction.controller.js';
import { OAuthInteractionService } from './oauth-interaction.service.js';
import { OAuthProviderController } from './oauth-provider.controller.js';
import { OAuthProvider } from './oauth-provider.js';
import { OAuthRecordsRepository } from './oauth-records.repository.js';
import { OAuthRecordsSweeper } from './oauth-records.sweeper.js';
import { OAuthSigningKeyRotation } from './oauth-signing-key-rotation.js';
import { ProtectedResourceController } from '../../../../apps/todo-api/src/mcp/protected-resource.controller.js';
import { TodoMcpAuthGuard } from '../../../../apps/todo-api/src/mcp/todo-mcp-auth.guard.js';

/**
 * OAuth 2.1 for agents: the authorization server (oidc-provider under /oauth, metadata at
 * /.well-known/oauth-authorization-server), its sign-in and consent page, and the todo MCP
 * endpoint as a protected resource; the account's connected apps.
 */
@Module({
  imports: [AuthModule],
  controllers: [ProtectedResourceController, OAuthInteractionController, OAuthProviderController, ConnectedAppsController],
  providers: [OAuthRecordsRepository, OAuthRecordsSweeper, OAuthConsentSitesRepository, OAuthProvider, OAuthSigningKeyRotation, OAuthInteractionService, ConnectedAppsService, TodoMcpAuthGuard],
  exports: [TodoMcpAuthGuard, ConnectedAppsService],
})
export class OAuthModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    // The sign-in page is a plain HTML form (no script under its CSP).
    consumer.apply(express.urlencoded({ extended: false, limit: '16kb' })).forRoutes(OAuthInteractionController);
  }
}
