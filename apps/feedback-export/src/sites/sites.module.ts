import { Module } from '@nestjs/common';
import { SitesController } from './sites.controller.js';
import { SitesRepository } from './sites.repository.js';
import { SitesService } from './sites.service.js';

/** Owner-managed sites and the issuing of their export tokens; other features reach sites through SitesService. */
@Module({
  controllers: [SitesController],
  providers: [SitesRepository, SitesService],
  exports: [SitesService],
})
export class SitesModule {}
