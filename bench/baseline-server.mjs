// The baseline: a hand-written node:http + pg server doing the same work as the measured
// todo routes (API-key hash lookup + subscription check + the same SQL), with no framework
// or ORM. The ratio of our service to this one is what our layers cost.
import { createHash } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.DB_POOL_SIZE ?? 10) });
const port = Number(process.env.PORT);

const TODO_COLUMNS = `id, text, priority, category, estimated_duration_minutes AS "estimatedDurationMinutes",
  floor(extract(epoch FROM created_at))::bigint AS "createdAt"`;

function send(res, status, body) {
  const json = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(json) });
  res.end(json);
}

async function authenticate(req) {
  const header = req.headers['x-api-key'] ?? /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (!header) return undefined;
  const hash = createHash('sha256').update(header).digest('hex');
  const { rows } = await pool.query(
    `SELECT k.user_id, k.expires_at, k.revoked_at, s.status, COALESCE(s.is_beta_lifetime, false) AS beta
     FROM api_keys k LEFT JOIN subscriptions s ON s.user_id = k.user_id WHERE k.key_hash = $1`,
    [hash],
  );
  const row = rows[0];
  if (!row || row.revoked_at || (row.expires_at && row.expires_at <= new Date())) return undefined;
  if (!(row.beta || row.status === 'active' || row.status === 'trialing')) return undefined;
  return row.user_id;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const server = http.createServer(async (req, res) => {
  try {
    if (req.url === '/status') return send(res, 200, { success: true, data: { status: 'ok' } });
    if (!req.url.startsWith('/api/v1/todos')) return send(res, 404, { success: false, error: { code: 'NOT_FOUND', message: 'No such resource' } });
    const userId = await authenticate(req);
    if (!userId) return send(res, 401, { success: false, error: { code: 'INVALID_API_KEY', message: 'invalid' } });
    if (req.method === 'GET') {
      const { rows } = await pool.query(`SELECT ${TODO_COLUMNS} FROM todos WHERE user_id = $1 ORDER BY created_at, id LIMIT 101`, [userId]);
      const todos = rows.slice(0, 100).map((r) => ({ ...r, id: Number(r.id), createdAt: Number(r.createdAt) }));
      return send(res, 200, { success: true, data: { todos, nextCursor: null } });
    }
    if (req.method === 'POST') {
      const input = JSON.parse(await readBody(req));
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE', [userId]);
        const { rows } = await client.query(
          `INSERT INTO todos (user_id, text, priority, category, estimated_duration_minutes) VALUES ($1, $2, $3, $4, $5) RETURNING ${TODO_COLUMNS}`,
          [userId, input.text, input.priority, input.category, input.estimatedDurationMinutes ?? null],
        );
        const todo = { ...rows[0], id: Number(rows[0].id), createdAt: Number(rows[0].createdAt) };
        const event = await client.query(`INSERT INTO todo_events (user_id, type, payload) VALUES ($1, 'todo.created', $2) RETURNING id`, [userId, todo]);
        await client.query(`SELECT pg_notify('todo_events', $1)`, [JSON.stringify({ u: userId, e: event.rows[0].id })]);
        await client.query('COMMIT');
        return send(res, 201, { success: true, data: { todo } });
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    }
    return send(res, 405, { success: false, error: { code: 'METHOD_NOT_ALLOWED', message: 'no' } });
  } catch (error) {
    send(res, 500, { success: false, error: { code: 'INTERNAL_ERROR', message: String(error.message) } });
  }
});

server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
