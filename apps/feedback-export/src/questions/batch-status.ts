/** The life of a question batch, as the `question_batches.status` column holds it and the API writes it. */
export const BATCH_STATUSES = ['draft', 'sent', 'opened', 'answered'] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];
