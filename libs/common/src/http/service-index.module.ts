import { Controller, DynamicModule, Get, Inject, Injectable, Module } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { Public } from '../auth/auth-scheme.decorator.js';
import { ApiEnvelope, ApiErrors } from '../openapi/envelope.schemas.js';
import { trimTrailingSlashes } from './url-path.js';
import { WithoutDatabase } from './without-database.js';

/** What an app says about itself at `GET /` and in its start block. */
export interface ServiceIndexOptions {
  /** `todo-api` or `feedback-export`. */
  service: string;
  title: string;
  /** Base of the links at `GET /` (PUBLIC_BASE_URL / FEEDBACK_PUBLIC_BASE_URL). */
  publicBaseUrl: string;
  /** The app's own pages beyond what every app has (API base, Swagger UI, OpenAPI JSON): name → path. */
  pages?: Record<string, string>;
  /** Optional features left unconfigured, one sentence each (named variable and what happens without it). */
  unsetFeatures?: string[];
}

export class ServiceLinkDto {
  @ApiProperty({ example: 'Swagger UI' })
  name: string;

  @ApiProperty({ example: 'http://localhost:3000/api/docs' })
  href: string;
}

export class ServiceIndexDto {
  @ApiProperty({ example: 'todo-api' })
  service: string;

  @ApiProperty({ example: 'Todo API' })
  title: string;

  @ApiProperty({ type: [ServiceLinkDto], description: 'The API base, its documentation (Swagger UI, OpenAPI JSON) and the pages the service serves' })
  links: ServiceLinkDto[];
}

const SERVICE_INDEX_OPTIONS = Symbol('SERVICE_INDEX_OPTIONS');

const COMMON_PAGES: Record<string, string> = { 'API base': '/api/v1', 'Swagger UI': '/api/docs', 'OpenAPI JSON': '/api/v1/openapi.json' };

/** The app's name, its links and its unconfigured features. */
@Injectable()
export class ServiceIndex {
  constructor(@Inject(SERVICE_INDEX_OPTIONS) readonly options: ServiceIndexOptions) {}

  get service(): string {
    return this.options.service;
  }

  get unsetFeatures(): string[] {
    return this.options.unsetFeatures ?? [];
  }

  /** Every link under a base URL (the public one for `GET /`, the listening address for the start block). */
  links(baseUrl = this.options.publicBaseUrl): ServiceLinkDto[] {
    const base = trimTrailingSlashes(baseUrl);
    return Object.entries({ ...COMMON_PAGES, ...this.options.pages }).map(([name, path]) => ({ name, href: `${base}${path}` }));
  }

  describe(): ServiceIndexDto {
    return { service: this.options.service, title: this.options.title, links: this.links() };
  }
}

@ApiTags('Status')
@Controller()
class ServiceIndexController {
  constructor(private readonly index: ServiceIndex) {}

  @Get()
  @Public()
  @WithoutDatabase()
  @ApiOperation({ summary: 'What this service is and where its API, documentation and pages are', operationId: 'getServiceIndex' })
  @ApiEnvelope(ServiceIndexDto)
  @ApiErrors()
  describe(): ServiceIndexDto {
    return this.index.describe();
  }
}

@Module({})
export class ServiceIndexModule {
  static forRoot(options: ServiceIndexOptions): DynamicModule {
    return {
      module: ServiceIndexModule,
      controllers: [ServiceIndexController],
      providers: [{ provide: SERVICE_INDEX_OPTIONS, useValue: options }, ServiceIndex],
      exports: [ServiceIndex],
    };
  }
}
