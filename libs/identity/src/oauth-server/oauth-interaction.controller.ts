import { Body, Controller, Get, Post, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { AcceptsBody, Public, RateLimit, RawResponse } from '#libs/common';
import { OAUTH_ENDPOINTS_RATE_LIMIT } from './oauth-rate-limits.js';
import { Client } from '../sign-in/client-info.decorator.js';
import type { ClientInfo } from '../sessions/sessions.service.js';
import { OAuthInteractionService, type SignInForm } from './oauth-interaction.service.js';

/**
 * Paths whose next segment is a sign-in interaction's id (the sign-in page, and the authorization
 * endpoint resuming it): the access log redacts it, as it does share tokens.
 */
export const OAUTH_INTERACTION_PATH_PREFIXES = ['/oauth/interaction/', '/oauth/authorize/'];

/** The authorization server's sign-in and consent page (HTML, a browser flow: described in the README). */
@ApiExcludeController()
@Controller('oauth')
@Public()
// The sign-in page's plain HTML form; JSON as before (the same fields, validated alike).
@AcceptsBody('application/x-www-form-urlencoded', 'application/json')
@RawResponse()
export class OAuthInteractionController {
  constructor(private readonly interactions: OAuthInteractionService) {}

  @Get('assets/sign-in.css')
  stylesheet(@Res() response: Response): void {
    this.interactions.stylesheet(response);
  }

  @Get('interaction/:uid')
  @RateLimit(OAUTH_ENDPOINTS_RATE_LIMIT)
  show(@Req() request: Request, @Res() response: Response): Promise<void> {
    return this.interactions.show(request, response);
  }

  @Post('interaction/:uid')
  @RateLimit(OAUTH_ENDPOINTS_RATE_LIMIT)
  submit(@Req() request: Request, @Res() response: Response, @Body() form: SignInForm, @Client() client: ClientInfo): Promise<void> {
    return this.interactions.submit(request, response, form, client);
  }
}
