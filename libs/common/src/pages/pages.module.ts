import { Module } from '@nestjs/common';
import { FaviconController, PageAssetsController } from './pages.controller.js';

/** What every HTML page of both apps shares: its layout (page-layout.ts), stylesheet and icon (each app imports it once). */
@Module({
  controllers: [PageAssetsController, FaviconController],
})
export class PagesModule {}
