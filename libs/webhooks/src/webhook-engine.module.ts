import { DynamicModule, Module, type FactoryProvider, type ModuleMetadata } from '@nestjs/common';
import { ObservabilityModule } from '#libs/common';
import { MailModule } from '#libs/mail';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookDeliveryService } from './webhook-delivery.service.js';
import { WebhookDisabledMailService } from './webhook-disabled-mail.service.js';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';
import { WEBHOOK_ENGINE_OPTIONS, type WebhookEngineOptions } from './webhook-engine.options.js';

/**
 * The webhook engine for one app: endpoints and their rules (WebhookEndpointsService), the durable delivery worker
 * (WebhookDeliveryService). The app passes its vocabulary in (WebhookEngineOptions, usually from its config).
 */
@Module({})
export class WebhookEngineModule {
  /** `imports`: the app's modules whose providers the options factory injects (e.g. what finds the owner to mail about a disabled endpoint). */
  static forApp({ imports = [], ...options }: Omit<FactoryProvider<WebhookEngineOptions>, 'provide'> & Pick<ModuleMetadata, 'imports'>): DynamicModule {
    return {
      module: WebhookEngineModule,
      imports: [ObservabilityModule, MailModule, ...imports],
      providers: [{ provide: WEBHOOK_ENGINE_OPTIONS, ...options }, WebhookEndpointsRepository, WebhookDeliveriesRepository, WebhookEndpointsService, WebhookDeliveryService, WebhookDisabledMailService],
      exports: [WebhookEndpointsService, WebhookDeliveryService],
    };
  }
}
