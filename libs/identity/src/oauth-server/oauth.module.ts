import { Module, type DynamicModule, type MiddlewareConsumer, type NestModule, type Provider } from '@nestjs/common';
import { AccountsCoreModule } from '../accounts-core.module.js';
import { SecurityActivityModule } from '../security-activity/security-activity.module.js';
import express from 'express';
import { AuthModule } from '../sign-in/auth.module.js';
import { SecondFactorModule } from '../second-factor/second-factor.module.js';
import { ConnectedAppsModule } from './connected-apps.module.js';
import { OAuthInteractionController } from './oauth-interaction.controller.js';
import { OAuthInteractionService } from './oauth-interaction.service.js';
import { OAuthProviderController } from './oauth-provider.controller.js';
import { OAuthProvider } from './oauth-provider.service.js';
import { OAuthRecordsRepository } from './oauth-records.repository.js';
import { OAuthRecordsSweeper } from './oauth-records.sweeper.js';
import { OAuthSigningKeyRotation } from './oauth-signing-key-rotation.service.js';
import { OAUTH_RESOURCES, OAuthConsentChoice, type OAuthResourceDeclaration } from './oauth-resources.js';

export interface OAuthServerOptions {
  /** The resources tokens are issued for, as their apps declare them; the first is the default of a client that names none. */
  resources: OAuthResourceDeclaration[];
}

/**
 * OAuth 2.1 for agents: the authorization server (oidc-provider under /oauth, metadata at
 * /.well-known/oauth-authorization-server) and its sign-in and consent page, issuing tokens for
 * the resources the mounting app passes in (each app declares its own resource, scopes and
 * consent choice); the account's connected apps (ConnectedAppsModule).
 */
@Module({})
export class OAuthModule implements NestModule {
  static forRoot(options: OAuthServerOptions): DynamicModule {
    const choices = options.resources.flatMap((declared) => (declared.consentChoice ? [declared.consentChoice] : []));
    if (choices.length > 1) throw new Error('The consent page offers one choice: at most one resource may declare a consentChoice');
    const choice: Provider[] = choices.map((useClass) => ({ provide: OAuthConsentChoice, useClass }));
    return {
      module: OAuthModule,
      imports: [AccountsCoreModule, AuthModule, ConnectedAppsModule, SecurityActivityModule, SecondFactorModule],
      controllers: [OAuthInteractionController, OAuthProviderController],
      providers: [{ provide: OAUTH_RESOURCES, useValue: options.resources }, ...choice, OAuthRecordsRepository, OAuthRecordsSweeper, OAuthProvider, OAuthSigningKeyRotation, OAuthInteractionService],
    };
  }

  configure(consumer: MiddlewareConsumer): void {
    // The sign-in page is a plain HTML form (no script under its CSP).
    consumer.apply(express.urlencoded({ extended: false, limit: '16kb' })).forRoutes(OAuthInteractionController);
  }
}
