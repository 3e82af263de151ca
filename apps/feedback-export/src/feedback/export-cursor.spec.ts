import { describe, expect, it } from '@jest/globals';
import { ExportCursorCodec, type ExportCursor } from './export-cursor.js';

const codec = new ExportCursorCodec('a-secret-of-at-least-thirty-two-characters');
const SITE = '0b6f1f2e-8a59-4b59-9d5c-2c3f0f6c1a11';
const ROW = '7d0c6a8e-3b1f-4c2e-9f4a-5e6d7c8b9a00';

describe('export cursors', () => {
  it('round-trips both kinds, start positions included, at microsecond precision', () => {
    const cursors: ExportCursor[] = [
      { kind: 'site', siteId: SITE, at: '2026-11-21 07:15:42.123456', id: ROW },
      { kind: 'site', siteId: SITE, at: null, id: null },
      { kind: 'portfolio', ownerId: SITE, at: '2026-11-21 07:15:42.000001', siteId: SITE, id: ROW },
      { kind: 'portfolio', ownerId: SITE, at: null, siteId: null, id: null },
    ];
    for (const cursor of cursors) expect(codec.decode(codec.encode(cursor))).toEqual(cursor);
  });

  it('is deterministic, so an empty start page hands back the same cursor', () => {
    const start: ExportCursor = { kind: 'site', siteId: SITE, at: null, id: null };
    expect(codec.encode(start)).toBe(codec.encode(start));
  });

  it('refuses cursors signed with another secret, altered payloads and garbage', () => {
    const cursor = codec.encode({ kind: 'site', siteId: SITE, at: '2026-11-21 07:15:42.123456', id: ROW });
    const foreign = new ExportCursorCodec('another-secret-of-at-least-thirty-two-chars').encode({ kind: 'site', siteId: SITE, at: null, id: null });
    const [version, , signature] = cursor.split('.');
    const altered = `${version}.${Buffer.from(JSON.stringify(['s', SITE, '1999-01-01 00:00:00.000000', ROW])).toString('base64url')}.${signature}`;
    for (const value of [foreign, altered, 'garbage', '', 'c1..', 'c2' + cursor.slice(2)]) {
      expect(() => codec.decode(value)).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
    }
  });
});
