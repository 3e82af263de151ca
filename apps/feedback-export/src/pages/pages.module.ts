import { Module } from '@nestjs/common';
import { FaviconController, PageAssetsController } from './pages.controller.js';

/** What every HTML page of this app shares: its layout (page-layout.ts), stylesheet and icon. */
@Module({
  controllers: [PageAssetsController, FaviconController],
})
export class PagesModule {}
