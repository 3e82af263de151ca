import { Injectable, Logger } from '@nestjs/common';
import { AppException, ErrorCode, RateLimitStore, rateLimitTrackerOf } from '#libs/common';
import { ConnectedAppsService, PasskeysService, PasswordHasher, SecondFactorService, SecurityActivityService, toSessionDto, toUserDto, UsersService, type ClientInfo } from '#libs/identity';
import { WEBHOOK_OWNER_KINDS, WebhookEndpointsService } from '#libs/webhooks';
import { apiKeyTracker } from '../api-access/api-access.schemes.js';
import { ApiKeysService } from '../api-keys/api-keys.service.js';
import { BillingCleanupService } from '../billing/billing-cleanup.service.js';
import { BillingService } from '../billing/billing.service.js';
import { TodoEventsService } from '../todos/todo-events.service.js';
import { TodosService } from '../todos/todos.service.js';
import { AccountRepository } from './account.repository.js';
import { ACCOUNT_EXPORT_VERSION, type AccountDeletedDto, type AccountExportDto, type DeleteAccountDto } from './dto/account.dto.js';

/** Account export (everything the account owns, no secrets) and deletion. */
@Injectable()
export class AccountService {
  private readonly logger = new Logger(AccountService.name);

  constructor(
    private readonly repository: AccountRepository,
    private readonly users: UsersService,
    private readonly todos: TodosService,
    private readonly todoEvents: TodoEventsService,
    private readonly billingCleanup: BillingCleanupService,
    private readonly billing: BillingService,
    private readonly apiKeys: ApiKeysService,
    private readonly passwords: PasswordHasher,
    private readonly rateLimits: RateLimitStore,
    private readonly connectedApps: ConnectedAppsService,
    private readonly activity: SecurityActivityService,
    private readonly secondFactor: SecondFactorService,
    private readonly webhooks: WebhookEndpointsService,
    private readonly passkeys: PasskeysService,
  ) {}

  async export(userId: string): Promise<AccountExportDto> {
    const user = await this.users.findById(userId);
    if (!user) throw new AppException(ErrorCode.AUTH_REQUIRED, 'A valid access token is required');
    const [todos, { keys: apiKeys }, sessions, { subscription }, { connectedApps }, securityActivity, secondFactor, webhooks, passkeys, siteIds] = await Promise.all([
      this.todos.allOf(userId),
      this.apiKeys.list(userId),
      this.repository.findSessions(userId),
      this.billing.getStatus(userId),
      this.connectedApps.list(userId),
      this.activity.allOf(userId),
      this.secondFactor.status(userId),
      this.webhooks.allOf(userId),
      this.passkeys.allOf(userId),
      this.repository.siteIdsOf(userId),
    ]);
    const siteWebhooks = (await this.webhooks.allOfOwners(WEBHOOK_OWNER_KINDS.site, siteIds)).map(({ ownerId, webhook }) => ({ ...webhook, siteId: ownerId }));
    const now = new Date();
    return {
      exportedAt: now.toISOString(),
      version: ACCOUNT_EXPORT_VERSION,
      account: toUserDto(user),
      todos,
      apiKeys,
      sessions: sessions.map((session) => toSessionDto(session, now)),
      subscription,
      connectedApps,
      securityActivity,
      secondFactor,
      webhooks,
      passkeys,
      siteWebhooks,
    };
  }

  /**
   * Checks the password (and, for an account with a second factor, a current code), then removes every row of the account in one transaction, which also
   * records what is left to do at Stripe (BillingCleanupService: expire its open Checkout
   * sessions, cancel its subscription, delete the customer). Its sessions, keys and open streams
   * stop at once; then the Stripe clean-up runs (the answer waits for it at most 2 s; a Stripe
   * outage never fails or holds up the deletion, the clean-up is retried until done), then its
   * rate-limit counters go (they would expire with their windows anyway).
   */
  async delete(userId: string, request: DeleteAccountDto, client: ClientInfo): Promise<AccountDeletedDto> {
    const user = await this.users.findById(userId);
    if (!user) throw new AppException(ErrorCode.AUTH_REQUIRED, 'A valid access token is required');
    if (!(await this.passwords.verify(request.password, user.passwordHash))) {
      throw new AppException(ErrorCode.INVALID_CREDENTIALS, 'The password is wrong');
    }
    await this.secondFactor.requireCurrentFactor(userId, request, client, 'account_deletion');
    const { deleted, stripeCustomer } = await this.repository.transaction(async (tx) => {
      const customer = await this.billingCleanup.queue(tx, userId);
      // Endpoints are owned by kind and id (no foreign key to users): removed here, their deliveries by cascade.
      await this.webhooks.removeAllOf(tx, userId);
      const removed = await this.repository.deleteUser(tx, userId);
      if (removed) await this.todoEvents.announceAccountDeleted(tx, userId);
      return { deleted: removed, stripeCustomer: customer };
    });
    if (!deleted) throw new AppException(ErrorCode.AUTH_REQUIRED, 'A valid access token is required');
    this.todoEvents.committed(userId);
    if (stripeCustomer) await this.billingCleanup.runNow(stripeCustomer);
    await this.rateLimits
      .forgetTrackers([
        rateLimitTrackerOf('user', userId),
        ...deleted.apiKeyIds.map((id) => apiKeyTracker(id)),
        ...deleted.sessionIds.map((id) => rateLimitTrackerOf('session', id)),
      ])
      .catch((error: Error) => this.logger.warn({ userId, err: error.message }, 'Rate-limit counters of a deleted account left to expire'));
    this.logger.log({ userId }, 'Account deleted');
    return { deleted: true };
  }
}
