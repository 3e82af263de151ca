import type { Type } from '@nestjs/common';
import type { AppConfig } from '#libs/config';
import type { ProtectedResource } from '../oauth-resource/protected-resource.js';

/** One thing of the account the consent page offers to choose (its id, its name, and a line that tells it apart). */
export interface ConsentOption {
  id: string;
  name: string;
  detail: string;
}

/**
 * A choice some scopes of a resource need on the consent page: they hold for things of the
 * account (feedback-export's sites) the user picks once signed in: one, or several when the app
 * says `multiple`. The app that owns the resource provides it (a provider class the authorization
 * server instantiates), and the grant records each pick as an RFC 9396 authorization detail for
 * that resource's tokens.
 */
export abstract class OAuthConsentChoice {
  /** The scopes that hold for the chosen things. */
  abstract readonly scopes: readonly string[];
  /** Whether the user may pick several things (checkboxes) rather than exactly one (radio buttons). */
  readonly multiple: boolean = false;
  /** The form field that carries the choice, and the page's words for it. */
  abstract readonly field: string;
  abstract readonly legend: string;
  /** "Choose the … {client} may use." and the error when none was chosen. */
  abstract prompt(clientName: string): string;
  abstract readonly chooseError: string;
  /** The error when the account has nothing to choose. */
  abstract readonly noOptionsError: string;
  /** What the signed-in account may choose from. */
  abstract options(accountId: string): Promise<ConsentOption[]>;
  /** The authorization detail that records one chosen thing for these chosen scopes. */
  abstract detail(resource: ProtectedResource, optionId: string, chosenScopes: readonly string[]): Record<string, unknown>;
}

/** A resource the authorization server issues tokens for, as the app that serves it declares it. */
export interface OAuthResourceDeclaration {
  /** The resource (its indicator, scopes and metadata), built from the configuration. */
  resource: (config: AppConfig) => ProtectedResource;
  /** What each of its scopes lets an app do, as the consent page says it. */
  scopeLabels: Readonly<Record<string, string>>;
  /** A choice its scopes need on the consent page, if any. */
  consentChoice?: Type<OAuthConsentChoice>;
}

/** The app's declarations: the first resource is the default of a client that names none. */
export const OAUTH_RESOURCES = Symbol('OAUTH_RESOURCES');
