import { CreateAccounts1763700000000 } from './1763700000000-CreateAccounts.js';
import { AuthSessions1763710000000 } from './1763710000000-AuthSessions.js';
import { CreateBillingRecords1763720000000 } from './1763720000000-CreateBillingRecords.js';
import { CreateSitesAndFeedback1763740000000 } from './1763740000000-CreateSitesAndFeedback.js';
import { CreateTodos1763730000000 } from './1763730000000-CreateTodos.js';
import { CreateQuestionBatches1763750000000 } from './1763750000000-CreateQuestionBatches.js';
import { CanonicalEmails1763760000000 } from './1763760000000-CanonicalEmails.js';
import { FeedbackClockPerOwner1763790000000 } from './1763790000000-FeedbackClockPerOwner.js';
import { TodoStreamLeases1763800000000 } from './1763800000000-TodoStreamLeases.js';
import { OAuthAuthorizationServer1763810000000 } from './1763810000000-OAuthAuthorizationServer.js';
import { OAuthSigningKeyRotation1763820000000 } from './1763820000000-OAuthSigningKeyRotation.js';
import { RateLimitHitFunction1763825000000 } from './1763825000000-RateLimitHitFunction.js';
import { OAuthGrantClientName1763831700000 } from './1763831700000-OAuthGrantClientName.js';
import { TodoIdempotencyPerGrant1763831800000 } from './1763831800000-TodoIdempotencyPerGrant.js';
import { QuestionMailUnsubscribes1764000200000 } from './1764000200000-QuestionMailUnsubscribes.js';
import { QuestionHtmlPolicyVersion1764000300000 } from './1764000300000-QuestionHtmlPolicyVersion.js';
import { BillingCleanups1764000500000 } from './1764000500000-BillingCleanups.js';
import { TodoStreamLeaseHolders1764000600000 } from './1764000600000-TodoStreamLeaseHolders.js';
import { SecurityActivity1764000800000 } from './1764000800000-SecurityActivity.js';
import { Webhooks1764001000000 } from './1764001000000-Webhooks.js';
import { EmailConfirmations1764001100000 } from './1764001100000-EmailConfirmations.js';
import { SecondFactors1764001200000 } from './1764001200000-SecondFactors.js';
import { FeedbackReporterContext1764001300000 } from './1764001300000-FeedbackReporterContext.js';
import { ReporterIdentity1764001500000 } from './1764001500000-ReporterIdentity.js';
import { Passkeys1764001700000 } from './1764001700000-Passkeys.js';
import { FeedbackWebhooks1764001800000 } from './1764001800000-FeedbackWebhooks.js';
import { WebhookDueOrder1764001900000 } from './1764001900000-WebhookDueOrder.js';

/**
 * Every migration, in order. Listed explicitly (not globbed) so the same list works from
 * compiled output, from ts sources under Jest, and for the TypeORM CLI.
 */
export const migrations = [CreateAccounts1763700000000, AuthSessions1763710000000, CreateBillingRecords1763720000000, CreateTodos1763730000000, CreateSitesAndFeedback1763740000000, CreateQuestionBatches1763750000000, CanonicalEmails1763760000000, FeedbackClockPerOwner1763790000000, TodoStreamLeases1763800000000, OAuthAuthorizationServer1763810000000, OAuthSigningKeyRotation1763820000000, RateLimitHitFunction1763825000000, OAuthGrantClientName1763831700000, TodoIdempotencyPerGrant1763831800000, QuestionMailUnsubscribes1764000200000, QuestionHtmlPolicyVersion1764000300000, BillingCleanups1764000500000, TodoStreamLeaseHolders1764000600000, SecurityActivity1764000800000, Webhooks1764001000000, EmailConfirmations1764001100000, SecondFactors1764001200000, FeedbackReporterContext1764001300000, ReporterIdentity1764001500000, Passkeys1764001700000, FeedbackWebhooks1764001800000, WebhookDueOrder1764001900000];
