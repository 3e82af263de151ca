import { Controller, Get, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { UseAuth } from '../auth/auth-scheme.decorator.js';
import { RawResponse } from '../http/envelope.js';
import { AppMetrics } from './app-metrics.js';

/** Prometheus scrape endpoint: operators only (METRICS_TOKEN), so not part of the published API document. */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: AppMetrics) {}

  @Get()
  @UseAuth('metrics-token')
  @RawResponse()
  async scrape(@Res() response: Response): Promise<void> {
    const { contentType, body } = await this.metrics.render();
    response.setHeader('Content-Type', contentType).setHeader('Cache-Control', 'no-store').end(body);
  }
}
