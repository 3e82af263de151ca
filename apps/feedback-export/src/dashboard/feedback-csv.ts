import type { FeedbackRow } from '../feedback/feedback.repository.js';

/**
 * The CSV download's columns, in order (RFC 4180): the item, the reporter context the widget captured
 * (browser … referrer), then the reporter the site's server signed for (empty when anonymous).
 */
const CSV_COLUMNS = ['id', 'createdAt', 'type', 'status', 'rating', 'message', 'pageUrl', 'browser', 'os', 'viewport', 'language', 'referrer', 'reporterId', 'reporterEmail', 'reporterName'] as const;

/**
 * One CSV cell: quoted, quotes doubled, and a text a spreadsheet would run as a formula (it starts
 * with =, +, -, @, a tab or a carriage return: OWASP's "CSV injection") starts with an apostrophe
 * instead, so it shows as the text that was sent.
 */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return `"${text.replace(/"/g, '""')}"`;
}

export function csvLine(cells: Array<string | number | null | undefined>): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

export const CSV_HEADER = csvLine([...CSV_COLUMNS]);

export function feedbackCsvLine(row: FeedbackRow): string {
  const context = row.reporterContext ?? {};
  return csvLine([
    row.id,
    row.createdAt,
    row.type,
    row.status,
    row.rating === null ? null : Number(row.rating),
    row.message,
    row.pageUrl,
    context.browser,
    context.os,
    context.viewport,
    context.language,
    context.referrer,
    row.reporter?.id,
    row.reporter?.email,
    row.reporter?.name,
  ]);
}
