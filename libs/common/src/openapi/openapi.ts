import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { ErrorDetailDto, ErrorEnvelopeDto } from './envelope.schemas.js';

export interface OpenApiInfo {
  title: string;
  description: string;
  serverUrl: string;
}

export function buildOpenApiDocument(app: INestApplication, info: OpenApiInfo): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.0.3')
    .setTitle(info.title)
    .setDescription(info.description)
    .setVersion('1.0.0')
    .addServer(info.serverUrl)
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from signup, login or refresh' }, 'jwt')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'API key (tdk_...) as a bearer token' }, 'apiKey')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'API key (tdk_...) in its own header' }, 'apiKeyHeader')
    .addApiKey({ type: 'apiKey', in: 'header', name: 'X-Admin-API-Key', description: 'Administrator key' }, 'adminKey')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'Site token: sk_ (read) or wk_ (read and write)' }, 'siteToken')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'Account portfolio token (ok_)' }, 'portfolioToken')
    .build();
  return SwaggerModule.createDocument(app, config, { extraModels: [ErrorEnvelopeDto, ErrorDetailDto] });
}

/** Serves the raw document at /api/v1/openapi.json and Swagger UI at /api/docs. */
export function serveOpenApi(app: INestApplication, document: OpenAPIObject): void {
  SwaggerModule.setup('api/docs', app, document, {
    jsonDocumentUrl: 'api/v1/openapi.json',
    yamlDocumentUrl: 'api/v1/openapi.yaml',
    customSiteTitle: `${document.info.title} — API reference`,
  });
}
