export * from './dto/webhook.dto.js';
export * from './webhook-delivery.service.js';
export * from './webhook-endpoints.service.js';
export * from './webhook-engine.module.js';
export * from './webhook-engine.options.js';
export * from './webhook-event-id.js';
export * from './webhook-retry-schedule.js';
export * from './webhook-signing.js';
