import { Inject, Injectable, Logger } from '@nestjs/common';
import { AppException, ErrorCode, trimTrailingSlashes, validationException } from '#libs/common';
import { APP_CONFIG, type AppConfig } from '#libs/config';
import { MailService } from '#libs/mail';
import { SitesService } from '../sites/sites.service.js';
import { requireWriteScope, type SiteAccess } from '../token-auth/site-access.js';
import {
  toBatchDetailDto,
  toBatchSummaryDto,
  type PreviewQuestionsDto,
  type QuestionsPreviewDto,
  type BatchDetailDto,
  type BatchSummaryDto,
  type CreatedBatchDto,
  type CreateQuestionBatchDto,
  type SentBatchDto,
  type ShareLinkDto,
} from './dto/question-batch.dto.js';
import { toSharedAnswerDto, toSharedBatchDto, type SharedAnswerDto, type SharedBatchDto, type SubmittedDto } from './dto/share.dto.js';
import { sanitizeQuestionHtml } from './html-policy.js';
import { QuestionsRepository, type BatchRow } from './questions.repository.js';
import { generateShareToken, hashShareToken, SHARE_TOKEN_PATTERN, ShareTokenSealer } from './share-token.js';

/** The whole life of a question batch: create, list, detail, link, send, and the recipient's side. */
@Injectable()
export class QuestionsService {
  private readonly logger = new Logger(QuestionsService.name);
  private readonly sealer: ShareTokenSealer;

  constructor(
    private readonly questions: QuestionsRepository,
    private readonly sites: SitesService,
    private readonly mail: MailService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.sealer = new ShareTokenSealer(config.jwtSecret);
  }

  // ---- site token side (REST and MCP) ----

  async create(access: SiteAccess, input: CreateQuestionBatchDto): Promise<CreatedBatchDto> {
    requireWriteScope(access, 'Creating a question batch');
    return this.insertBatch(access.ownerId, access.siteId, input);
  }

  private async insertBatch(ownerId: string, siteId: string, input: CreateQuestionBatchDto): Promise<CreatedBatchDto> {
    this.requireUniqueNumbers(input.questions);
    const token = generateShareToken();
    const created = await this.questions.transaction((tx) =>
      this.questions.insert(tx, {
        siteId,
        ownerId,
        title: input.title.trim(),
        introHtml: sanitizeQuestionHtml(input.introHtml ?? ''),
        notifyEmail: input.notifyEmail ?? null,
        sendNow: input.sendNow === true,
        shareTokenHash: hashShareToken(token),
        shareTokenSealed: this.sealer.seal(token),
        questions: [...input.questions].sort((a, b) => a.n - b.n).map((q) => ({ n: q.n, title: q.title.trim(), html: sanitizeQuestionHtml(q.html) })),
      }),
    );
    return created.status === 'sent' ? { id: created.id, status: created.status, shareUrl: this.shareUrl(token) } : { id: created.id, status: created.status };
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

  async list(ownerId: string, siteId: string): Promise<BatchSummaryDto[]> {
    return (await this.questions.listBySite(ownerId, siteId)).map(toBatchSummaryDto);
  }

  async detail(ownerId: string, siteId: string, batchId: string): Promise<BatchDetailDto> {
    const row = await this.requireBatch(ownerId, siteId, batchId);
    return toBatchDetailDto(row, await this.questions.questionsWithAnswers(row.id));
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

  // ---- owner side (JWT) ----

  /** Owner send: draft -> sent. Sending a batch already sent changes nothing and answers the same. */
  async send(ownerId: string, siteId: string, batchId: string): Promise<SentBatchDto> {
    await this.questions.markSent(ownerId, siteId, batchId);
    const row = await this.requireBatch(ownerId, siteId, batchId);
    return { id: row.id, status: row.status, shareUrl: this.shareUrlOf(row) };
  }

  /** The dashboard's create: the same rules as the write token's, on a site of the owner (another's is 404). */
  async createForOwner(ownerId: string, siteId: string, input: CreateQuestionBatchDto): Promise<CreatedBatchDto> {
    await this.requireOwnedSite(ownerId, siteId);
    return this.insertBatch(ownerId, siteId, input);
  }

  /** What the recipient would see of this HTML: the same sanitiser as on store and render, nothing stored. */
  async preview(ownerId: string, siteId: string, input: PreviewQuestionsDto): Promise<QuestionsPreviewDto> {
    await this.requireOwnedSite(ownerId, siteId);
    this.requireUniqueNumbers(input.questions);
    return {
      introHtml: sanitizeQuestionHtml(input.introHtml ?? ''),
      questions: [...input.questions].sort((a, b) => a.n - b.n).map((q) => ({ n: q.n, title: q.title.trim(), html: sanitizeQuestionHtml(q.html) })),
    };
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
      await this.questions.markOpened(row.id);
      row = await this.requireShared(token);
    }
    return toSharedBatchDto(row, await this.questions.questionsWithAnswers(row.id));
  }

  async saveAnswer(token: string, n: number, text: string): Promise<SharedAnswerDto> {
    if (!SHARE_TOKEN_PATTERN.test(token)) throw this.notFound();
    const row = await this.questions.saveAnswer(hashShareToken(token), n, text);
    if (!row) {
      await this.requireShared(token);
      throw new AppException(ErrorCode.NOT_FOUND, `This batch has no question ${n}`);
    }
    return toSharedAnswerDto(row);
  }

  /** Submit: -> answered, and the notify address is e-mailed when there is something new to read. */
  async submit(token: string): Promise<SubmittedDto> {
    const batch = await this.requireShared(token);
    const { notify, at } = await this.questions.transaction((tx) => this.questions.submit(tx, batch.id));
    if (notify) await this.notifyOwner(batch, at);
    return { status: 'answered' };
  }

  private async notifyOwner(batch: BatchRow, at: Date): Promise<void> {
    const questions = await this.questions.questionsWithAnswers(batch.id);
    const answered = questions.filter((q) => q.answerText !== null).length;
    const dashboardUrl = new URL('/dashboard', this.config.feedbackPublicBaseUrl).toString();
    const lines = [
      `Your question batch "${batch.title}" was answered (${answered} of ${questions.length} questions).`,
      '',
      ...questions.flatMap((q) => [`${q.n}. ${q.title}`, q.answerText === null ? '   (no answer)' : q.answerText.replace(/^/gm, '   '), '']),
      `Read and follow up in the dashboard: ${dashboardUrl}`,
    ];
    try {
      await this.mail.send({ to: batch.notifyEmail, subject: `Answers received: ${batch.title.replace(/[\r\n]+/g, ' ')}`, text: lines.join('\n') });
      await this.questions.markNotified(batch.id, at);
    } catch (error) {
      // The answers are saved either way; the next submit tries the notification again.
      this.logger.error({ batchId: batch.id, err: { message: (error as Error)?.message } }, 'Answer notification could not be sent');
    }
  }

  // ---- helpers ----

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
