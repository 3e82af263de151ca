import { Controller, Get, HttpCode, Param, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiProduces, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AcceptsBody, PAGE_HEADERS, Public, RateLimit, RawResponse, type RateLimitOptions } from '#libs/common';
import { AnswerNotificationsService, UNSUBSCRIBE_PATH } from '../answer-notifications.service.js';
import { renderUnsubscribedPage, renderUnsubscribeNotFoundPage, renderUnsubscribePage } from './share-page.js';

/** Per client IP, roomy: mail providers send one-click POSTs for many users from few addresses. Fails open (the signed token is the access control, the limit only caps load). */
export const UNSUBSCRIBE_RATE_LIMIT: RateLimitOptions = { bucket: 'question-mail-unsubscribe', limit: 300, windowSeconds: 60, storeOutage: 'fail-open' };

const TOKEN_PARAM = { name: 'unsubscribeToken', description: 'The token of the notification’s List-Unsubscribe link (64 characters)' };
const html = (example: string) => ({ 'text/html': { schema: { type: 'string' }, example } });

/** The notification recipient's unsubscribe (RFC 8058): no account, the signed token in the path names site and recipient. */
@ApiTags('Question share page')
@Public()
@RateLimit(UNSUBSCRIBE_RATE_LIMIT)
@Controller()
export class UnsubscribeController {
  constructor(private readonly notifications: AnswerNotificationsService) {}

  @Get('unsubscribe/:unsubscribeToken')
  @RawResponse()
  @ApiOperation({
    operationId: 'getUnsubscribePage',
    summary: 'The page behind a notification’s unsubscribe link (HTML): asks for confirmation with a button, unsubscribes nothing by itself.',
  })
  @ApiParam(TOKEN_PARAM)
  @ApiProduces('text/html')
  @ApiResponse({ status: 200, description: 'HTML page with the confirmation button', content: html('<!doctype html><html lang="en"><head><title>Unsubscribe</title>…</html>') })
  @ApiResponse({ status: 404, description: 'HTML page: the token is not valid or its site is gone', content: html('<!doctype html><html lang="en"><head><title>Not found</title>…</html>') })
  async page(@Param('unsubscribeToken') token: string, @Res() response: Response): Promise<void> {
    const target = await this.notifications.unsubscribeTarget(token);
    response.set(PAGE_HEADERS);
    if (!target) response.status(404).send(renderUnsubscribeNotFoundPage());
    else response.status(200).send(renderUnsubscribePage(target.siteName, `${UNSUBSCRIBE_PATH}${token}`));
  }

  @Post('unsubscribe/:unsubscribeToken')
  @HttpCode(200)
  @RawResponse()
  @ApiOperation({
    operationId: 'unsubscribeFromNotifications',
    summary: 'One-click unsubscribe (RFC 8058 List-Unsubscribe-Post, or the page’s button): this recipient gets no more answer notifications for the site’s batches. Idempotent.',
    description: 'The body (`List-Unsubscribe=One-Click`, form-encoded) is not needed; the token is the credential.',
  })
  @ApiParam(TOKEN_PARAM)
  // RFC 8058: mail providers post `List-Unsubscribe=One-Click` form-encoded or as multipart/form-data.
  @AcceptsBody('application/x-www-form-urlencoded', 'multipart/form-data')
  @ApiProduces('text/html')
  @ApiResponse({ status: 200, description: 'HTML page: unsubscribed', content: html('<!doctype html><html lang="en"><head><title>Unsubscribed</title>…</html>') })
  @ApiResponse({ status: 404, description: 'HTML page: the token is not valid or its site is gone', content: html('<!doctype html><html lang="en"><head><title>Not found</title>…</html>') })
  async unsubscribe(@Param('unsubscribeToken') token: string, @Res() response: Response): Promise<void> {
    const done = await this.notifications.unsubscribe(token);
    response.set(PAGE_HEADERS);
    if (!done) response.status(404).send(renderUnsubscribeNotFoundPage());
    else response.status(200).send(renderUnsubscribedPage(done.siteName));
  }
}
