import { Injectable } from '@nestjs/common';
import { AppException, ErrorCode, type Principal } from '#libs/common';
import {
  WebhookEndpointsService,
  type CreateWebhookDto,
  type UpdateWebhookDto,
  type WebhookDeliveryDataDto,
  type WebhookDeliveryListDto,
  type WebhookEndpointDataDto,
  type WebhookEndpointDeletedDto,
  type WebhookEndpointListDto,
  type WebhookEndpointSecretDto,
  type WebhookReplayedDto,
} from '#libs/webhooks';
import { SitesService } from '../sites/sites.service.js';

/**
 * A site's webhook endpoints (libs/webhooks with owner kind `site`, owner id: the site id). Every call first decides
 * whether the caller acts on the site the route names: its write token (wk_) only on its own site, its owner (an
 * access token) on any of theirs. Another site, whether it exists or not, is 404 "No such site", as on the site routes.
 */
@Injectable()
export class SiteWebhooksService {
  constructor(
    private readonly webhooks: WebhookEndpointsService,
    private readonly sites: SitesService,
  ) {}

  async create(principal: Principal, siteId: string, input: CreateWebhookDto): Promise<WebhookEndpointSecretDto> {
    return this.webhooks.create(await this.siteOf(principal, siteId), input);
  }

  async list(principal: Principal, siteId: string): Promise<WebhookEndpointListDto> {
    return this.webhooks.list(await this.siteOf(principal, siteId));
  }

  async get(principal: Principal, siteId: string, id: string): Promise<WebhookEndpointDataDto> {
    return this.webhooks.get(await this.siteOf(principal, siteId), id);
  }

  async update(principal: Principal, siteId: string, id: string, changes: UpdateWebhookDto): Promise<WebhookEndpointDataDto> {
    return this.webhooks.update(await this.siteOf(principal, siteId), id, changes);
  }

  async delete(principal: Principal, siteId: string, id: string): Promise<WebhookEndpointDeletedDto> {
    return this.webhooks.delete(await this.siteOf(principal, siteId), id);
  }

  async rotateSecret(principal: Principal, siteId: string, id: string): Promise<WebhookEndpointSecretDto> {
    return this.webhooks.rotateSecret(await this.siteOf(principal, siteId), id);
  }

  async sendTest(principal: Principal, siteId: string, id: string, eventType: string): Promise<WebhookDeliveryDataDto> {
    return this.webhooks.sendTest(await this.siteOf(principal, siteId), id, eventType);
  }

  async deliveriesOf(principal: Principal, siteId: string, id: string): Promise<WebhookDeliveryListDto> {
    return this.webhooks.deliveriesOf(await this.siteOf(principal, siteId), id);
  }

  async replay(principal: Principal, siteId: string, deliveryId: string): Promise<WebhookDeliveryDataDto> {
    return this.webhooks.replay(await this.siteOf(principal, siteId), deliveryId);
  }

  async replaySince(principal: Principal, siteId: string, id: string, since: string): Promise<WebhookReplayedDto> {
    return this.webhooks.replaySince(await this.siteOf(principal, siteId), id, since);
  }

  /** The site the caller may manage the webhooks of: the route's site, when it is the token's or the user's own. */
  private async siteOf(principal: Principal, siteId: string): Promise<string> {
    if (principal.kind === 'site' && principal.scope === 'write' && principal.siteId === siteId) return siteId;
    if (principal.kind === 'user') return (await this.sites.get(principal.userId, siteId)).id;
    throw new AppException(ErrorCode.NOT_FOUND, 'No such site');
  }
}
