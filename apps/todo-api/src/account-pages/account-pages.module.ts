import { Module } from '@nestjs/common';
import { PagesModule } from '#libs/common';
import { AccountPagesController } from './account-pages.controller.js';

/** The account pages a person opens in a browser, with the stylesheet and icon both apps' pages share. */
@Module({
  imports: [PagesModule],
  controllers: [AccountPagesController],
})
export class AccountPagesModule {}
