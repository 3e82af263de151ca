import { All, Controller, Get, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AcceptsBody, ANY_MEDIA_TYPE, Public, RateLimit, RawResponse } from '#libs/common';
import { OAUTH_ENDPOINTS_RATE_LIMIT, OAUTH_REGISTRATION_RATE_LIMIT } from './oauth-rate-limits.js';
import { OAuthProvider } from './oauth-provider.service.js';

/**
 * The authorization server's own endpoints, answered by oidc-provider (standard protocol
 * endpoints, described by their RFCs and the metadata document rather than the OpenAPI document).
 */
@ApiExcludeController()
@Controller()
@Public()
// oidc-provider reads and checks its endpoints' bodies (form-encoded token/revoke, JSON registration).
@AcceptsBody(ANY_MEDIA_TYPE)
@RawResponse()
export class OAuthProviderController {
  constructor(private readonly oauth: OAuthProvider) {}

  /** RFC 8414 metadata: the same document as OpenID discovery. */
  @Get('.well-known/oauth-authorization-server')
  metadata(@Req() request: Request, @Res() response: Response): Promise<void> {
    request.url = '/.well-known/openid-configuration';
    return this.oauth.handle(request, response);
  }

  /** Dynamic client registration (RFC 7591): open, so limited per client address. */
  @Post('oauth/register')
  @RateLimit(OAUTH_REGISTRATION_RATE_LIMIT)
  register(@Req() request: Request, @Res() response: Response): Promise<void> {
    return this.oauth.handle(request, response);
  }

  @RateLimit(OAUTH_ENDPOINTS_RATE_LIMIT)
  @All(['.well-known/openid-configuration', 'oauth/authorize', 'oauth/authorize/*resume', 'oauth/register/*client', 'oauth/token', 'oauth/revoke', 'oauth/jwks'])
  endpoints(@Req() request: Request, @Res() response: Response): Promise<void> {
    return this.oauth.handle(request, response);
  }
}
