import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppException, AppMetrics, ErrorCode, SecretSealer, trimTrailingSlashes, validationException } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import type { Transaction } from '#libs/database';
import { eventsWrittenCounter, type EventsWritten } from '#libs/webhooks';
import { QUOTA_CONFIG, type QuotaConfig } from '../sites/quota.config.js';
import { AnswerNotificationsService } from './answer-notifications.service.js';
import { SitesService } from '../sites/sites.service.js';
import { requireWriteScope, type SiteAccess } from '../token-auth/site-access.js';
import type { FeedbackEventType } from '../webhooks/feedback-event-log.js';
import { FEEDBACK_EVENTS_WRITTEN } from '../webhooks/feedback-webhook-events.js';
import {
  MAX_HTML_LENGTH,
  toBatchDetailDto,
  toBatchSummaryDto,
  type PreviewQuestionsDto,
  type QuestionsPreviewDto,
  type BatchDetailDto,
  type BatchSummaryDto,
  type CreatedBatchDto,
  type CreateQuestionBatchDto,
  type DeletedBatchDto,
  type UpdateQuestionBatchDto,
  type SentBatchDto,
  type ShareLinkDto,
} from './dto/question-batch.dto.js';
import { toSharedAnswerDto, toSharedBatchDto, type SharedAnswerDto, type SharedBatchDto, type SubmittedDto } from './dto/share.dto.js';
import { HTML_POLICY_VERSION, htmlLimitViolations, type HtmlField, sanitizeQuestionHtml } from './html-policy.js';
import { QuestionsRepository, storedBatchBytes, type BatchRow, type NewBatch, type QuestionRow, type StoredBatchText } from './questions.repository.js';
import { generateShareToken, hashShareToken, SHARE_TOKEN_PATTERN, shareTokenSealer } from './share-token.js';

/** The whole life of a question batch: create, list, detail, link, send, and the recipient's side. */
@Injectable()
export class QuestionsService {
  private readonly logger = new Logger(QuestionsService.name);
  private readonly sealer: SecretSealer;
  private readonly eventsWritten: EventsWritten<FeedbackEventType>;

  constructor(
    private readonly questions: QuestionsRepository,
    private readonly sites: SitesService,
    private readonly notifications: AnswerNotificationsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(QUOTA_CONFIG) private readonly quotas: QuotaConfig,
    metrics: AppMetrics,
  ) {
    this.sealer = shareTokenSealer(config.jwtSecret);
    this.eventsWritten = eventsWrittenCounter(metrics, FEEDBACK_EVENTS_WRITTEN);
  }

  // ---- site token side (REST and MCP) ----

  async create(access: SiteAccess, input: CreateQuestionBatchDto): Promise<CreatedBatchDto> {
    requireWriteScope(access, 'Creating a question batch');
    return this.insertBatch(access.ownerId, access.siteId, input);
  }

  private async insertBatch(ownerId: string, siteId: string, input: CreateQuestionBatchDto): Promise<CreatedBatchDto> {
    this.requireUniqueNumbers(input.questions);
    const sanitised = this.sanitiseBatchHtml(input);
    const token = generateShareToken();
    const created = await this.questions.transaction(async (tx) => {
      const batch: NewBatch = {
        siteId,
        ownerId,
        title: input.title.trim(),
        introHtml: sanitised.introHtml,
        notifyEmail: input.notifyEmail ?? null,
        sendNow: input.sendNow === true,
        shareTokenHash: hashShareToken(token),
        shareTokenSealed: this.sealer.seal(token),
        htmlPolicyVersion: HTML_POLICY_VERSION,
        questions: sanitised.questions,
      };
      await this.requireWithinBatchQuotas(tx, batch);
      return this.questions.insert(tx, batch);
    });
    if (created.status === 'sent') this.eventsWritten.written('batch.sent');
    return created.status === 'sent' ? { id: created.id, status: created.status, shareUrl: this.shareUrl(token) } : { id: created.id, status: created.status };
  }

  /** 403 QUOTA_EXCEEDED when the batch would take its site over the batch count or stored bytes quota (counted under the site's lock). */
  private async requireWithinBatchQuotas(tx: Transaction, batch: NewBatch): Promise<void> {
    const usage = await this.questions.lockSiteBatchUsage(tx, batch.ownerId, batch.siteId);
    if (!usage) return; // not the owner's site: the insert finds nothing, as before
    const { maxBatchesPerSite, maxBatchBytesPerSite } = this.quotas;
    if (usage.batches >= maxBatchesPerSite) {
      throw new AppException(ErrorCode.QUOTA_EXCEEDED, `This site already has ${maxBatchesPerSite} question batches, the most it may have`, {
        quota: 'batchesPerSite',
        limit: maxBatchesPerSite,
      });
    }
    const bytes = storedBatchBytes(batch);
    if (usage.bytes + bytes > maxBatchBytesPerSite) {
      throw new AppException(
        ErrorCode.QUOTA_EXCEEDED,
        `This batch (${bytes} bytes of text) would take the site's question batches over ${maxBatchBytesPerSite} bytes (${usage.bytes} stored)`,
        { quota: 'batchBytesPerSite', limit: maxBatchBytesPerSite },
      );
    }
  }

  private requireUniqueNumbers(questions: Array<{ n: number }>): void {
    const seen = new Set<number>();
    const duplicates = questions.map((q, i) => ({ n: q.n, i })).filter(({ n }) => (seen.has(n) ? true : (seen.add(n), false)));
    if (duplicates.length > 0) {
      throw validationException(
        duplicates.map(({ n, i }) => ({ field: `questions.${i}.n`, messages: [`n ${n} is used by more than one question`] })),
        'Question numbers (n) must be unique within a batch',
      );
    }
  }

  /**
   * The batch's HTML sanitised, questions in ascending n: what is stored, and what the preview shows.
   * The limits that bound the sanitiser's work (nesting, the batch's characters and elements) are
   * checked first, in one linear pass; a field that the sanitiser makes longer than a field may be
   * (it closes open tags and gives links rel and target) is refused too, as storing it would be.
   */
  private sanitiseBatchHtml(input: { introHtml?: string; questions: Array<{ n: number; title: string; html: string }> }): {
    introHtml: string;
    questions: Array<{ n: number; title: string; html: string }>;
  } {
    const fields: HtmlField[] = [
      ...(input.introHtml ? [{ field: 'introHtml', html: input.introHtml }] : []),
      ...input.questions.map((q, i) => ({ field: `questions.${i}.html`, html: q.html })),
    ];
    const violations = htmlLimitViolations(fields);
    if (violations.length > 0) throw validationException(violations);
    const introHtml = sanitizeQuestionHtml(input.introHtml ?? '');
    const questions = input.questions.map((q, i) => ({ i, n: q.n, title: q.title.trim(), html: sanitizeQuestionHtml(q.html) }));
    const tooLong = [
      ...(introHtml.length > MAX_HTML_LENGTH ? [{ field: 'introHtml', length: introHtml.length }] : []),
      ...questions.filter((q) => q.html.length > MAX_HTML_LENGTH).map((q) => ({ field: `questions.${q.i}.html`, length: q.html.length })),
    ];
    if (tooLong.length > 0) {
      throw validationException(
        tooLong.map(({ field, length }) => ({
          field,
          messages: [`${field} is ${length.toLocaleString('en-US')} characters once sanitised (open tags closed, links given rel and target); at most ${MAX_HTML_LENGTH.toLocaleString('en-US')} are allowed`],
        })),
      );
    }
    return { introHtml, questions: questions.sort((a, b) => a.n - b.n).map(({ n, title, html }) => ({ n, title, html })) };
  }

  async list(ownerId: string, siteId: string): Promise<BatchSummaryDto[]> {
    return (await this.questions.listBySite(ownerId, siteId)).map(toBatchSummaryDto);
  }

  async detail(ownerId: string, siteId: string, batchId: string): Promise<BatchDetailDto> {
    const row = await this.requireBatch(ownerId, siteId, batchId);
    return toBatchDetailDto(...(await this.withCurrentHtml(row, await this.questions.questionsWithAnswers(row.id))));
  }

  /** The share link of a sent batch: 409 BATCH_NOT_SENT for a draft. */
  async link(ownerId: string, siteId: string, batchId: string): Promise<ShareLinkDto> {
    const row = await this.requireBatch(ownerId, siteId, batchId);
    if (row.status === 'draft') throw new AppException(ErrorCode.BATCH_NOT_SENT, 'The batch is a draft: send it first; its link is not live yet');
    return { shareUrl: this.shareUrlOf(row) };
  }

  async linkForToken(access: SiteAccess, batchId: string): Promise<ShareLinkDto> {
    requireWriteScope(access, 'Fetching a share link');
    return this.link(access.ownerId, access.siteId, batchId);
  }

  /**
   * Edits a draft (write scope): the fields given replace the stored ones under the create's rules
   * (limits, unique n, the batch's HTML limits and the site's byte quota, counted without the old
   * text). A batch no longer a draft is 409 BATCH_ALREADY_SENT. Answers the batch as stored.
   */
  async updateDraft(access: SiteAccess, batchId: string, input: UpdateQuestionBatchDto): Promise<BatchDetailDto> {
    requireWriteScope(access, 'Editing a question batch');
    const { ownerId, siteId } = access;
    if (input.questions) this.requireUniqueNumbers(input.questions);
    await this.questions.transaction(async (tx) => {
      // The site's lock first, as a create takes it: the byte quota is counted one write at a time.
      const usage = await this.questions.lockSiteBatchUsage(tx, ownerId, siteId);
      const stored = usage && (await this.questions.lockForEdit(tx, ownerId, siteId, batchId));
      if (!usage || !stored) throw this.notFound();
      this.requireDraft(stored);
      // Everything is sanitised again under the current policy: one version for the whole batch.
      const sanitised = this.sanitiseBatchHtml({
        introHtml: input.introHtml === undefined ? stored.introHtml : (input.introHtml ?? ''),
        questions: input.questions ?? stored.questions,
      });
      const edited = { title: input.title?.trim() ?? stored.title, ...sanitised };
      const bytes = storedBatchBytes(edited);
      const othersBytes = usage.bytes - storedBatchBytes(stored);
      if (othersBytes + bytes > this.quotas.maxBatchBytesPerSite) {
        throw new AppException(
          ErrorCode.QUOTA_EXCEEDED,
          `This batch (${bytes} bytes of text) would take the site's question batches over ${this.quotas.maxBatchBytesPerSite} bytes (${othersBytes} stored in the others)`,
          { quota: 'batchBytesPerSite', limit: this.quotas.maxBatchBytesPerSite },
        );
      }
      await this.questions.rewriteDraft(tx, batchId, { ...edited, notifyEmail: input.notifyEmail ?? null, htmlPolicyVersion: HTML_POLICY_VERSION }, input.notifyEmail !== undefined);
    });
    return this.detail(ownerId, siteId, batchId);
  }

  /** Deletes a draft (write scope); a sent batch is 409 BATCH_ALREADY_SENT (its recipient holds the link). */
  async deleteDraft(access: SiteAccess, batchId: string): Promise<DeletedBatchDto> {
    requireWriteScope(access, 'Deleting a question batch');
    if (!(await this.questions.deleteDraft(access.ownerId, access.siteId, batchId))) this.requireDraft(await this.requireBatch(access.ownerId, access.siteId, batchId));
    return { id: batchId, deleted: true };
  }

  /**
   * The write token's send: draft -> sent through the owner's send, but not idempotent: a batch
   * already sent is 409 BATCH_ALREADY_SENT, so an agent learns the link went out before (get_share_link gives it).
   */
  async sendDraft(access: SiteAccess, batchId: string): Promise<SentBatchDto> {
    requireWriteScope(access, 'Sending a question batch');
    const { ownerId, siteId } = access;
    if (await this.questions.markSent(ownerId, siteId, batchId)) this.eventsWritten.written('batch.sent');
    else this.requireDraft(await this.requireBatch(ownerId, siteId, batchId));
    return this.sentBatch(ownerId, siteId, batchId);
  }

  /** 409 BATCH_ALREADY_SENT unless the batch is a draft. */
  private requireDraft(batch: Pick<StoredBatchText, 'status'>): void {
    if (batch.status !== 'draft') throw new AppException(ErrorCode.BATCH_ALREADY_SENT, `The batch is ${batch.status}: only a draft can be edited, deleted or sent`);
  }

  // ---- owner side (JWT) ----

  /** Owner send: draft -> sent. Sending a batch already sent changes nothing and answers the same. */
  async send(ownerId: string, siteId: string, batchId: string): Promise<SentBatchDto> {
    if (await this.questions.markSent(ownerId, siteId, batchId)) this.eventsWritten.written('batch.sent');
    return this.sentBatch(ownerId, siteId, batchId);
  }

  private async sentBatch(ownerId: string, siteId: string, batchId: string): Promise<SentBatchDto> {
    const row = await this.requireBatch(ownerId, siteId, batchId);
    return { id: row.id, status: row.status, shareUrl: this.shareUrlOf(row) };
  }

  /** The dashboard's create: the same rules as the write token's, on a site of the owner (another's is 404). */
  async createForOwner(ownerId: string, siteId: string, input: CreateQuestionBatchDto): Promise<CreatedBatchDto> {
    await this.requireOwnedSite(ownerId, siteId);
    return this.insertBatch(ownerId, siteId, input);
  }

  /** What the recipient would see of this HTML: sanitised as a create would store it (same limits), nothing stored. */
  async preview(ownerId: string, siteId: string, input: PreviewQuestionsDto): Promise<QuestionsPreviewDto> {
    await this.requireOwnedSite(ownerId, siteId);
    this.requireUniqueNumbers(input.questions);
    return this.sanitiseBatchHtml(input);
  }

  private async requireOwnedSite(ownerId: string, siteId: string): Promise<void> {
    await this.sites.requireOwned(ownerId, siteId);
  }

  /** The dashboard's list: a site of another account is 404, not an empty list. */
  async listForOwner(ownerId: string, siteId: string): Promise<BatchSummaryDto[]> {
    await this.requireOwnedSite(ownerId, siteId);
    return this.list(ownerId, siteId);
  }

  // ---- recipient side (share token) ----

  /**
   * The batch as its recipient sees it. Unknown or draft: 404. With `markOpened` (the page's
   * script calling the API) the first view moves sent -> opened; the server-rendered HTML
   * alone does not, so link previewers and mail scanners fetching the URL do not count as a view.
   */
  async viewShared(token: string, markOpened: boolean): Promise<SharedBatchDto> {
    let row = await this.requireShared(token);
    if (markOpened && row.status === 'sent') {
      if (await this.questions.markOpened(row.id)) this.eventsWritten.written('batch.opened');
      row = await this.requireShared(token);
    }
    return toSharedBatchDto(...(await this.withCurrentHtml(row, await this.questions.questionsWithAnswers(row.id))));
  }

  async saveAnswer(token: string, n: number, text: string): Promise<SharedAnswerDto> {
    if (!SHARE_TOKEN_PATTERN.test(token)) throw this.notFound();
    const row = await this.questions.saveAnswer(hashShareToken(token), n, text);
    if (!row) {
      await this.requireShared(token);
      throw new AppException(ErrorCode.NOT_FOUND, `This batch has no question ${n}`);
    }
    this.eventsWritten.written('batch.answer_saved');
    return toSharedAnswerDto(row);
  }

  /**
   * Submit: -> answered. The first submit claims the batch's one "answered" notification (see
   * AnswerNotificationsService); later submits and edits send nothing.
   */
  async submit(token: string): Promise<SubmittedDto> {
    const batch = await this.requireShared(token);
    const { claimedAt, answered } = await this.questions.transaction((tx) => this.questions.submit(tx, batch.id));
    if (answered) this.eventsWritten.written('batch.answered');
    if (claimedAt) await this.notifications.answered(batch, claimedAt);
    return { status: 'answered' };
  }

  // ---- helpers ----

  /**
   * A batch's HTML as it is served: as stored, sanitised when it was written. A batch stored before
   * that (or under an older policy) is sanitised here, once: the result is written back with the
   * current version, so later views serve it as stored too. Nothing on a view sanitises otherwise.
   */
  private async withCurrentHtml(row: BatchRow, questions: QuestionRow[]): Promise<[BatchRow, QuestionRow[]]> {
    if (row.htmlPolicyVersion === HTML_POLICY_VERSION) return [row, questions];
    const current: [BatchRow, QuestionRow[]] = [
      { ...row, introHtml: sanitizeQuestionHtml(row.introHtml), htmlPolicyVersion: HTML_POLICY_VERSION },
      questions.map((q) => ({ ...q, html: sanitizeQuestionHtml(q.html) })),
    ];
    try {
      await this.questions.transaction((tx) => this.questions.replaceHtml(tx, row.id, row.htmlPolicyVersion, HTML_POLICY_VERSION, current[0].introHtml, current[1]));
    } catch (error) {
      // The sanitised copy is served either way; the next read tries to store it again.
      this.logger.warn({ batchId: row.id, err: { message: (error as Error)?.message } }, 'Sanitised question HTML could not be stored');
    }
    return current;
  }

  private async requireBatch(ownerId: string, siteId: string, batchId: string): Promise<BatchRow> {
    const row = await this.questions.findInSite(ownerId, siteId, batchId);
    if (!row) throw new AppException(ErrorCode.NOT_FOUND, 'No such question batch');
    return row;
  }

  /** A live (not draft) batch by its share token; anything else is 404. */
  private async requireShared(token: string): Promise<BatchRow> {
    const row = SHARE_TOKEN_PATTERN.test(token) ? await this.questions.findByTokenHash(hashShareToken(token)) : undefined;
    if (!row || row.status === 'draft') throw this.notFound();
    return row;
  }

  private notFound(): AppException {
    return new AppException(ErrorCode.NOT_FOUND, 'No such question batch');
  }

  private shareUrlOf(row: BatchRow): string {
    const token = this.sealer.open(row.shareTokenSealed);
    if (!token) throw new Error('The share token cannot be unsealed (was JWT_SECRET changed?)');
    return this.shareUrl(token);
  }

  private shareUrl(token: string): string {
    return `${trimTrailingSlashes(this.config.feedbackPublicBaseUrl)}/q/${token}`;
  }
}
