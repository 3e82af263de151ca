import { readFileSync } from 'node:fs';
import { Controller, Get, Header, Res } from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public } from '../auth/auth-scheme.decorator.js';
import { RawResponse } from '../http/envelope.js';
import { APP_CSS } from './page-style.js';

const FAVICON_SVG = readFileSync(new URL('./public/favicon.svg', import.meta.url), 'utf8');
const FAVICON_ICO = readFileSync(new URL('./public/favicon.ico', import.meta.url));
const PAGE_KIT = readFileSync(new URL('./public/page-kit.js', import.meta.url), 'utf8');
const WEBHOOK_PANEL = readFileSync(new URL('./public/webhook-panel.js', import.meta.url), 'utf8');

/** The stylesheet every page links (share page, dashboard, account pages), and the scripts the signed-in pages share. */
@Public()
@Controller('assets')
export class PageAssetsController {
  @Get('app.css')
  @RawResponse()
  @Header('Content-Type', 'text/css; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=300')
  @ApiExcludeEndpoint()
  css(): string {
    return APP_CSS;
  }

  /** PageKit: what the dashboard's and the account pages' scripts share (PAGE_KIT_SCRIPT, loaded before them). */
  @Get('page-kit.js')
  @RawResponse()
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=300')
  @ApiExcludeEndpoint()
  pageKit(): string {
    return PAGE_KIT;
  }

  /** The webhook panel of the dashboard and the account centre (WEBHOOK_PANEL_SCRIPT, after the page kit). */
  @Get('webhook-panel.js')
  @RawResponse()
  @Header('Content-Type', 'text/javascript; charset=utf-8')
  @Header('Cache-Control', 'public, max-age=300')
  @ApiExcludeEndpoint()
  webhookPanel(): string {
    return WEBHOOK_PANEL;
  }
}

/** The icon of every page here (browsers ask for /favicon.ico on their own; the pages link the SVG). */
@Public()
@Controller()
export class FaviconController {
  @Get('favicon.ico')
  @RawResponse()
  @ApiExcludeEndpoint()
  ico(@Res() response: Response): void {
    // Written as is: Express would add a charset to a binary body sent through Nest.
    response.set({ 'Content-Type': 'image/x-icon', 'Cache-Control': 'public, max-age=86400' }).end(FAVICON_ICO);
  }

  @Get('favicon.svg')
  @RawResponse()
  @Header('Content-Type', 'image/svg+xml')
  @Header('Cache-Control', 'public, max-age=86400')
  @ApiExcludeEndpoint()
  svg(): string {
    return FAVICON_SVG;
  }
}
