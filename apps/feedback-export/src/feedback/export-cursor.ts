import { AppException, ErrorCode, isUuid, SignedCursorCodec } from '#libs/common';

/**
 * Export cursors: an opaque, signed position. `at` is created_at at full (microsecond)
 * precision as UTC text, never the second-resolution value shown in responses; null means
 * "before the first row". A per-site cursor is bound to its site, a portfolio cursor to its
 * account and carries the site id of its position (the portfolio order is createdAt, siteId, id).
 */
export type ExportCursor =
  | { kind: 'site'; siteId: string; at: string | null; id: string | null }
  | { kind: 'portfolio'; ownerId: string; at: string | null; siteId: string | null; id: string | null };

const POSITION = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/;

function invalid(): AppException {
  return new AppException(ErrorCode.VALIDATION_ERROR, 'The cursor (since) is invalid: pass a nextCursor exactly as returned', {
    fields: [{ field: 'since', messages: ['must be a nextCursor returned by this endpoint'] }],
  });
}

export class ExportCursorCodec {
  // A key of its own, derived from the service secret: a cursor cannot be forged or altered.
  private readonly codec: SignedCursorCodec;

  constructor(secret: string) {
    this.codec = new SignedCursorCodec(secret, 'feedback-export-cursor');
  }

  encode(cursor: ExportCursor): string {
    return this.codec.seal(cursor.kind === 'site' ? ['s', cursor.siteId, cursor.at, cursor.id] : ['p', cursor.ownerId, cursor.at, cursor.siteId, cursor.id]);
  }

  /** Verifies and parses; a corrupt or forged cursor is 400 VALIDATION_ERROR. */
  decode(value: string): ExportCursor {
    const fields = this.codec.open(value);
    if (!Array.isArray(fields)) throw invalid();
    const isPosition = (v: unknown) => typeof v === 'string' && POSITION.test(v);
    if (fields[0] === 's' && fields.length === 4 && isUuid(fields[1])) {
      const [, siteId, at, id] = fields;
      if (at === null && id === null) return { kind: 'site', siteId, at: null, id: null };
      if (isPosition(at) && isUuid(id)) return { kind: 'site', siteId, at, id };
    }
    if (fields[0] === 'p' && fields.length === 5 && isUuid(fields[1])) {
      const [, ownerId, at, siteId, id] = fields;
      if (at === null && siteId === null && id === null) return { kind: 'portfolio', ownerId, at: null, siteId: null, id: null };
      if (isPosition(at) && isUuid(siteId) && isUuid(id)) return { kind: 'portfolio', ownerId, at, siteId, id };
    }
    throw invalid();
  }
}
