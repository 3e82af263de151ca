import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { AppException, ErrorCode, type SecretSealer } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import type { Transaction } from '#libs/database';
import {
  toWebhookDeliveryDto,
  toWebhookEndpointDto,
  type CreateWebhookDto,
  type UpdateWebhookDto,
  type WebhookDeliveryDataDto,
  type WebhookDeliveryListDto,
  type WebhookEndpointDataDto,
  type WebhookEndpointDeletedDto,
  type WebhookEndpointDto,
  type WebhookEndpointListDto,
  type WebhookEndpointSecretDto,
  type WebhookReplayedDto,
} from './dto/webhook.dto.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository.js';
import { WEBHOOK_ENGINE_OPTIONS, type WebhookEngineOptions } from './webhook-engine.options.js';
import { newWebhookSecret, webhookSecretSealer } from './webhook-signing.js';
import { webhookUrlProblem } from './webhook-url.js';

/** After a rotation the previous secret keeps signing beside the new one this long. */
const WEBHOOK_SECRET_OVERLAP_MS = 24 * 60 * 60_000;
const DELIVERY_LIST_LIMIT = 100;

/** The owner's webhook endpoints and their deliveries (the rules; the app's controller calls these with its owner id). */
@Injectable()
export class WebhookEndpointsService {
  private readonly sealer: SecretSealer;

  constructor(
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    @Inject(WEBHOOK_ENGINE_OPTIONS) private readonly options: WebhookEngineOptions,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.sealer = webhookSecretSealer(config.jwtSecret);
  }

  async create(ownerId: string, input: CreateWebhookDto): Promise<WebhookEndpointSecretDto> {
    await this.checkUrl(input.url);
    const eventTypes = this.checkEventTypes(input.eventTypes ?? []);
    const secret = newWebhookSecret();
    const max = this.options.maxEndpointsPerOwner;
    const row = await this.endpoints.insertWithinQuota(this.options.ownerKind, ownerId, { url: input.url, eventTypes, description: input.description ?? '', enabled: input.enabled ?? true }, this.sealer.seal(secret), max);
    if (!row) throw new AppException(ErrorCode.QUOTA_EXCEEDED, `At most ${max} webhook endpoints per ${this.options.ownerNoun ?? 'account'}`, { quota: 'webhook-endpoints', limit: max });
    return { webhook: toWebhookEndpointDto(row), secret };
  }

  async list(ownerId: string): Promise<WebhookEndpointListDto> {
    const rows = await this.endpoints.list(this.options.ownerKind, ownerId);
    const now = new Date();
    return { webhooks: rows.map((row) => toWebhookEndpointDto(row, now)) };
  }

  /** Every endpoint of the owner, for an account export (never the secrets). */
  async allOf(ownerId: string): Promise<WebhookEndpointDto[]> {
    return (await this.list(ownerId)).webhooks;
  }

  /**
   * Every endpoint of owners of another kind (e.g. the sites of an account being exported, whose endpoints another
   * app's engine manages), each with its owner id; never the secrets.
   */
  async allOfOwners(ownerKind: string, ownerIds: string[]): Promise<Array<{ ownerId: string; webhook: WebhookEndpointDto }>> {
    const now = new Date();
    return (await this.endpoints.listOfOwners(ownerKind, ownerIds)).map((row) => ({ ownerId: row.ownerId, webhook: toWebhookEndpointDto(row, now) }));
  }

  async get(ownerId: string, id: string): Promise<WebhookEndpointDataDto> {
    const row = await this.endpoints.find(this.options.ownerKind, ownerId, id);
    if (!row) throw notFound();
    return { webhook: toWebhookEndpointDto(row) };
  }

  async update(ownerId: string, id: string, changes: UpdateWebhookDto): Promise<WebhookEndpointDataDto> {
    if (changes.url !== undefined) await this.checkUrl(changes.url);
    const eventTypes = changes.eventTypes === undefined ? undefined : this.checkEventTypes(changes.eventTypes);
    const row = await this.endpoints.update(this.options.ownerKind, ownerId, id, { ...changes, eventTypes });
    if (!row) throw notFound();
    return { webhook: toWebhookEndpointDto(row) };
  }

  async delete(ownerId: string, id: string): Promise<WebhookEndpointDeletedDto> {
    if (!(await this.endpoints.delete(this.options.ownerKind, ownerId, id))) throw notFound();
    return { deleted: true };
  }

  async rotateSecret(ownerId: string, id: string): Promise<WebhookEndpointSecretDto> {
    const secret = newWebhookSecret();
    const row = await this.endpoints.rotate(this.options.ownerKind, ownerId, id, this.sealer.seal(secret), WEBHOOK_SECRET_OVERLAP_MS);
    if (!row) throw notFound();
    return { webhook: toWebhookEndpointDto(row), secret };
  }

  /** Queues a real, signed event of the chosen type (its catalogue sample as data, a fresh `evt_test_…` id) for the endpoint. */
  async sendTest(ownerId: string, id: string, eventType: string): Promise<WebhookDeliveryDataDto> {
    if (!Object.hasOwn(this.options.eventCatalogue, eventType)) throw unknownEventType(eventType, Object.keys(this.options.eventCatalogue));
    const row = await this.deliveries.insertFor(this.options.ownerKind, ownerId, id, `evt_test_${randomUUID().replaceAll('-', '')}`, eventType, this.options.eventCatalogue[eventType]);
    if (!row) throw notFound();
    return { delivery: toWebhookDeliveryDto(row) };
  }

  async deliveriesOf(ownerId: string, id: string): Promise<WebhookDeliveryListDto> {
    if (!(await this.endpoints.find(this.options.ownerKind, ownerId, id))) throw notFound();
    const rows = await this.deliveries.listOf(this.options.ownerKind, ownerId, id, DELIVERY_LIST_LIMIT);
    return { deliveries: rows.map(toWebhookDeliveryDto) };
  }

  async replay(ownerId: string, deliveryId: string): Promise<WebhookDeliveryDataDto> {
    const row = await this.deliveries.replay(this.options.ownerKind, ownerId, deliveryId);
    if (!row) throw new AppException(ErrorCode.NOT_FOUND, 'Webhook delivery not found');
    return { delivery: toWebhookDeliveryDto(row) };
  }

  async replaySince(ownerId: string, id: string, since: string): Promise<WebhookReplayedDto> {
    if (!(await this.endpoints.find(this.options.ownerKind, ownerId, id))) throw notFound();
    return { replayed: await this.deliveries.replaySince(this.options.ownerKind, ownerId, id, new Date(since)) };
  }

  /** Inside the owner's deletion transaction. */
  async removeAllOf(tx: Transaction, ownerId: string): Promise<void> {
    await this.endpoints.deleteAllOf(tx, this.options.ownerKind, ownerId);
  }

  private async checkUrl(url: string): Promise<void> {
    const problem = await webhookUrlProblem(url, this.options);
    if (problem) throw new AppException(ErrorCode.VALIDATION_ERROR, problem);
  }

  private checkEventTypes(eventTypes: string[]): string[] {
    const known = Object.keys(this.options.eventCatalogue);
    const unknown = eventTypes.find((type) => !known.includes(type));
    if (unknown !== undefined) throw unknownEventType(unknown, known);
    return [...new Set(eventTypes)];
  }
}

function notFound(): AppException {
  return new AppException(ErrorCode.NOT_FOUND, 'Webhook endpoint not found');
}

function unknownEventType(type: string, known: string[]): AppException {
  return new AppException(ErrorCode.VALIDATION_ERROR, `Unknown event type ${JSON.stringify(type).slice(0, 120)}; known: ${known.join(', ')}`);
}
