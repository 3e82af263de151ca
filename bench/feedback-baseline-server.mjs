// The drain baseline: a hand-written node:http + pg server serving the same per-site export page as
// GET /api/v1/export/feedback of feedback-export: the bearer token looked up by its SHA-256 hash (read
// or write kind), the same signed cursor (the service's own codec and secret, so nextCursor is the
// same string), the same keyset SQL and the same JSON, byte for byte. No framework, no ORM, no
// per-token rate limit (the service counts its hit in the token statement, so it costs no extra trip).
// The ratio of the API's drain to this one is what our layers cost on the export path.
import http from 'node:http';
import pg from 'pg';
import { ExportCursorCodec } from '../dist/apps/feedback-export/src/feedback/export-cursor.js';
import { hashFeedbackToken, isWellFormedFeedbackToken } from '../dist/apps/feedback-export/src/token-auth/feedback-token.format.js';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 10) });
const port = Number(process.env.PORT);
const cursors = new ExportCursorCodec(process.env.JWT_SECRET);
const DEFAULT_PAGE = 50;

function send(res, status, body) {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

async function authenticate(req) {
  const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (!token || !isWellFormedFeedbackToken(token)) return undefined;
  const { rows } = await pool.query({
    name: 'token',
    text: `SELECT id, owner_id AS "ownerId", site_id AS "siteId", kind FROM feedback_tokens WHERE token_hash = $1`,
    values: [hashFeedbackToken(token)],
  });
  const row = rows[0];
  return row && (row.kind === 'read' || row.kind === 'write') ? row : undefined;
}

async function page(principal, query) {
  const limit = query.has('limit') ? Number(query.get('limit')) : DEFAULT_PAGE;
  let after = null;
  const since = query.get('since');
  if (since !== null) {
    const cursor = cursors.decode(since);
    if (cursor.kind !== 'site' || cursor.siteId !== principal.siteId) return undefined;
    after = cursor.at === null ? null : cursor;
  }
  const params = [principal.ownerId, principal.siteId];
  let keyset = '';
  if (after) {
    params.push(after.at, after.id);
    keyset = `AND (f.created_at, f.id) > ($3::timestamp AT TIME ZONE 'UTC', $4::uuid)`;
  }
  params.push(limit + 1);
  const { rows } = await pool.query({
    name: after ? 'page-after' : 'page-first',
    text: `SELECT f.id, f.site_id AS "siteId", f.type, f.message, f.rating, f.page_url AS "pageUrl", f.status,
                  to_char(f.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') AS "createdAt",
                  to_char(f.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS "position"
           FROM feedback f WHERE f.owner_id = $1 AND f.site_id = $2 ${keyset} ORDER BY f.created_at, f.id LIMIT $${params.length}`,
    values: params,
  });
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  const nextCursor = last
    ? cursors.encode({ kind: 'site', siteId: principal.siteId, at: last.position, id: last.id })
    : (since ?? cursors.encode({ kind: 'site', siteId: principal.siteId, at: null, id: null }));
  const feedback = items.map((r) => ({
    id: r.id,
    siteId: r.siteId,
    type: r.type,
    message: r.message,
    rating: r.rating === null ? null : Number(r.rating),
    pageUrl: r.pageUrl,
    status: r.status,
    createdAt: r.createdAt,
  }));
  return { feedback, nextCursor, hasMore: rows.length > limit };
}

const server = http.createServer(async (req, res) => {
  try {
    if (req.url === '/status') return send(res, 200, { success: true, data: { status: 'ok' } });
    const url = new URL(req.url, 'http://localhost');
    if (req.method !== 'GET' || url.pathname !== '/api/v1/export/feedback') return send(res, 404, { success: false, error: { code: 'NOT_FOUND', message: 'No such resource' } });
    const principal = await authenticate(req);
    if (!principal) return send(res, 401, { success: false, error: { code: 'INVALID_TOKEN', message: 'invalid' } });
    const data = await page(principal, url.searchParams);
    if (!data) return send(res, 400, { success: false, error: { code: 'CURSOR_MISMATCH', message: 'wrong cursor' } });
    return send(res, 200, { success: true, data });
  } catch (error) {
    send(res, 500, { success: false, error: { code: 'INTERNAL_ERROR', message: String(error.message) } });
  }
});

server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
