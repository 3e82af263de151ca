import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { ApiEnvelope, ApiErrors, CurrentUserId, ErrorCode, RateLimit, UseAuth, UUID_PARAM, type RateLimitOptions } from '#libs/common';
import { CreatedSiteDto, CreateSiteDto, IssuedIdentitySecretDto, IssuedTokenDto, PortfolioTokenStateDto, SiteDataDto, SiteDeletedDto, SiteListDto, UpdateSiteDto } from './dto/site.dto.js';
import { SitesService } from './sites.service.js';

/**
 * The account's site administration (create, rename, delete, token rotation): 60 per hour per
 * account, together. Refused while the counters' store is down (nothing here is urgent).
 */
const SITE_ADMIN_RATE_LIMIT: RateLimitOptions = { bucket: 'site-admin', limit: 60, windowSeconds: 3600, storeOutage: 'fail-closed' };

@ApiTags('Sites')
@UseAuth('jwt')
@Controller('api/v1')
export class SitesController {
  constructor(private readonly sites: SitesService) {}

  @Post('sites')
  @RateLimit(SITE_ADMIN_RATE_LIMIT)
  @ApiOperation({
    operationId: 'createSite',
    summary: 'Create a site; the slug is derived from the name when absent',
    description: 'An account holds at most FEEDBACK_MAX_SITES_PER_ACCOUNT sites (default 25): beyond, 403 QUOTA_EXCEEDED.',
  })
  @ApiEnvelope(CreatedSiteDto, { status: 201 })
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.QUOTA_EXCEEDED, ErrorCode.CONFLICT)
  create(@CurrentUserId() ownerId: string, @Body() body: CreateSiteDto): Promise<CreatedSiteDto> {
    return this.sites.create(ownerId, body);
  }

  @Get('sites')
  @ApiOperation({ operationId: 'listSites', summary: 'The sites of the account, oldest first' })
  @ApiEnvelope(SiteListDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED)
  async list(@CurrentUserId() ownerId: string): Promise<SiteListDto> {
    return { sites: await this.sites.list(ownerId) };
  }

  @Get('sites/:siteId')
  @ApiOperation({ operationId: 'getSite', summary: 'One site of the account' })
  @ApiParam({ name: 'siteId', format: 'uuid' })
  @ApiEnvelope(SiteDataDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.NOT_FOUND)
  async get(@CurrentUserId() ownerId: string, @Param('siteId', UUID_PARAM) siteId: string): Promise<SiteDataDto> {
    return { site: await this.sites.get(ownerId, siteId) };
  }

  @Patch('sites/:siteId')
  @RateLimit(SITE_ADMIN_RATE_LIMIT)
  @ApiOperation({ operationId: 'updateSite', summary: 'Rename a site (the slug never changes)' })
  @ApiParam({ name: 'siteId', format: 'uuid' })
  @ApiEnvelope(SiteDataDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.NOT_FOUND)
  async update(@CurrentUserId() ownerId: string, @Param('siteId', UUID_PARAM) siteId: string, @Body() body: UpdateSiteDto): Promise<SiteDataDto> {
    return { site: await this.sites.rename(ownerId, siteId, body.name) };
  }

  @Delete('sites/:siteId')
  @RateLimit(SITE_ADMIN_RATE_LIMIT)
  @ApiOperation({ operationId: 'deleteSite', summary: 'Delete a site with its tokens and feedback' })
  @ApiParam({ name: 'siteId', format: 'uuid' })
  @ApiEnvelope(SiteDeletedDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.NOT_FOUND)
  delete(@CurrentUserId() ownerId: string, @Param('siteId', UUID_PARAM) siteId: string): Promise<SiteDeletedDto> {
    return this.sites.delete(ownerId, siteId);
  }

  @Post('sites/:siteId/tokens/read/rotate')
  @RateLimit(SITE_ADMIN_RATE_LIMIT)
  @HttpCode(200)
  @ApiOperation({ operationId: 'rotateSiteReadToken', summary: 'Issue a new read token (sk_); the previous one stops at once. Shown only once.' })
  @ApiParam({ name: 'siteId', format: 'uuid' })
  @ApiEnvelope(IssuedTokenDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.NOT_FOUND)
  rotateRead(@CurrentUserId() ownerId: string, @Param('siteId', UUID_PARAM) siteId: string): Promise<IssuedTokenDto> {
    return this.sites.rotateSiteToken(ownerId, siteId, 'read');
  }

  @Post('sites/:siteId/tokens/write/rotate')
  @RateLimit(SITE_ADMIN_RATE_LIMIT)
  @HttpCode(200)
  @ApiOperation({ operationId: 'rotateSiteWriteToken', summary: 'Issue a new write token (wk_); the previous one stops at once. Shown only once.' })
  @ApiParam({ name: 'siteId', format: 'uuid' })
  @ApiEnvelope(IssuedTokenDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.NOT_FOUND)
  rotateWrite(@CurrentUserId() ownerId: string, @Param('siteId', UUID_PARAM) siteId: string): Promise<IssuedTokenDto> {
    return this.sites.rotateSiteToken(ownerId, siteId, 'write');
  }

  @Post('sites/:siteId/identity-secret')
  @RateLimit(SITE_ADMIN_RATE_LIMIT)
  @HttpCode(200)
  @ApiOperation({
    operationId: 'rotateSiteIdentitySecret',
    summary: 'Issue a new identity secret for signed reporter identities; the previous one stops at once. Shown only once.',
    description:
      "Your server signs `{sub, email, name, exp}` with it (JWT HS256, exp at most 24 h ahead) and hands the token to the widget " +
      '(`data-user-token` or `FeedbackWidget.identify(token)`); feedback sent with it carries `reporter`. ' +
      'Stored sealed (the server must read it back to verify). A token signed with another secret is 400 IDENTITY_TOKEN_INVALID.',
  })
  @ApiParam({ name: 'siteId', format: 'uuid' })
  @ApiEnvelope(IssuedIdentitySecretDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED, ErrorCode.NOT_FOUND)
  rotateIdentitySecret(@CurrentUserId() ownerId: string, @Param('siteId', UUID_PARAM) siteId: string): Promise<IssuedIdentitySecretDto> {
    return this.sites.rotateIdentitySecret(ownerId, siteId);
  }

  @Get('portfolio-token')
  @ApiOperation({ operationId: 'getPortfolioTokenState', summary: 'Whether the account has a portfolio token (ok_) and when it was issued; never the token itself' })
  @ApiEnvelope(PortfolioTokenStateDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED)
  portfolioState(@CurrentUserId() ownerId: string): Promise<PortfolioTokenStateDto> {
    return this.sites.portfolioTokenState(ownerId);
  }

  @Post('portfolio-token/rotate')
  @RateLimit(SITE_ADMIN_RATE_LIMIT)
  @HttpCode(200)
  @ApiOperation({ operationId: 'rotatePortfolioToken', summary: 'Issue a new account portfolio token (ok_); the previous one stops at once. Shown only once.' })
  @ApiEnvelope(IssuedTokenDto)
  @ApiErrors(ErrorCode.AUTH_REQUIRED)
  rotatePortfolio(@CurrentUserId() ownerId: string): Promise<IssuedTokenDto> {
    return this.sites.rotatePortfolioToken(ownerId);
  }
}
