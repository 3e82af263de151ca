import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule, type TagObject } from '@nestjs/swagger';
import { listRoutes } from '../auth/route-table.js';
import { ErrorDetailDto, ErrorEnvelopeDto, FieldErrorDto } from './envelope.schemas.js';
import { finishOpenApiDocument, type AppSecurity } from './openapi-finish.js';

export type { AppSecurity } from './openapi-finish.js';

export interface OpenApiInfo {
  title: string;
  description: string;
  serverUrl: string;
  /** Every tag the app's routes use, with what it groups (the document lists those in use). */
  tags: TagObject[];
  /** The OpenAPI side of the app's own auth schemes (those it adds to AuthSchemes). */
  security?: AppSecurity;
}

/** Tags of routes every app has (libs/common). */
const SHARED_TAGS: TagObject[] = [
  { name: 'Status', description: 'Health of the service and its database' },
  { name: 'Contract', description: 'This OpenAPI document' },
];

export function buildOpenApiDocument(app: INestApplication, info: OpenApiInfo): OpenAPIObject {
  const config = new DocumentBuilder()
    .setOpenAPIVersion('3.0.3')
    .setTitle(info.title)
    .setDescription(info.description)
    .setVersion('1.0.0')
    .addServer(info.serverUrl)
    .build();
  const document = SwaggerModule.createDocument(app, config, { extraModels: [ErrorEnvelopeDto, ErrorDetailDto, FieldErrorDto] });
  return finishOpenApiDocument(document, listRoutes(app), { tags: [...info.tags, ...SHARED_TAGS], publicBaseUrl: info.serverUrl, security: info.security });
}

/** Serves the raw document at /api/v1/openapi.json and Swagger UI at /api/docs. */
export function serveOpenApi(app: INestApplication, document: OpenAPIObject): void {
  SwaggerModule.setup('api/docs', app, document, {
    jsonDocumentUrl: 'api/v1/openapi.json',
    yamlDocumentUrl: 'api/v1/openapi.yaml',
    customSiteTitle: `${document.info.title} — API reference`,
  });
}
