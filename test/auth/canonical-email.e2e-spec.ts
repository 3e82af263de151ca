import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { canonicalEmail } from '#libs/identity';
import { runMigrations } from '#libs/database';
import { insertUser } from '#libs/testing';
import { startApp, startWithDatabase, type TestApp } from '../support/test-apps.js';
import { expectError, logIn, signUp, strongPassword } from './helpers.js';

const ADMIN_KEY = `admin-${randomBytes(12).toString('hex')}`;

/** Spellings of one address a client might send, and a look-alike that is another address. */
function spellings(email: string): Record<string, string> {
  const [local, domain] = email.split('@');
  return {
    'upper case': email.toUpperCase(),
    'surrounding spaces': `  ${email} `,
    'fullwidth letters': `${local.replace(/[a-z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0))}@${domain}`,
    'ligature ﬁ': email.replace('fi', 'ﬁ'),
    'İ (U+0130) for i': email.replace('i', 'İ'),
  };
}

describe('one canonical e-mail for signup, login, its limiter, reset, beta grants and the unique index', () => {
  let t: TestApp & { database: { url: string } };
  /** Behind a declared proxy, so X-Forwarded-For chooses the client IP. */
  let proxied: TestApp;

  beforeAll(async () => {
    t = await startWithDatabase('todo-api', { ADMIN_API_KEY: ADMIN_KEY });
    proxied = await startApp('todo-api', t.database.url, { TRUST_PROXY: 'loopback', ADMIN_API_KEY: ADMIN_KEY });
  });
  afterAll(async () => {
    await proxied?.close();
    await t?.close();
  });

  it('signup refuses every spelling of a taken address (409 EMAIL_TAKEN) and stores the canonical form', async () => {
    const first = await signUp(t, { email: `fiona.Smith-${randomBytes(3).toString('hex')}@Example.test` });
    const stored = await t.dataSource.query(`SELECT email, email_canonical FROM users WHERE id = $1`, [first.userId]);
    expect(stored).toEqual([{ email: first.email, email_canonical: canonicalEmail(first.email) }]);
    const { 'İ (U+0130) for i': _distinct, ...same } = spellings(first.email);
    for (const [name, spelling] of Object.entries(same)) {
      const res = await t.http.post('/api/v1/auth/signup').send({ email: spelling.trim(), password: strongPassword() });
      expect({ name, status: res.status, code: res.body.error?.code }).toEqual({ name, status: 409, code: 'EMAIL_TAKEN' });
    }
    const count = await t.dataSource.query(`SELECT count(*)::int AS n FROM users WHERE email_canonical = $1`, [canonicalEmail(first.email)]);
    expect(count[0].n).toBe(1);
  });

  it('no spelling reaches the account while dodging its blocked (IP, e-mail) counter', async () => {
    const victim = await insertUser(t.dataSource, { email: `victim.fi-${randomBytes(3).toString('hex')}@example.test` });
    const blockedIp = { 'X-Forwarded-For': '192.0.2.10' };
    for (let i = 0; i < 10; i++) expectError(await logIn(proxied, victim.email, `wrong-${i}-password`, blockedIp), 401, 'INVALID_CREDENTIALS');
    expectError(await logIn(proxied, victim.email, victim.password, blockedIp), 429, 'RATE_LIMITED');

    const outcome: Record<string, { reaches: boolean; blocked: boolean }> = {};
    let fresh = 20;
    for (const [name, spelling] of Object.entries(spellings(victim.email))) {
      const blocked = (await logIn(proxied, spelling, victim.password, blockedIp)).status === 429;
      const reaches = (await logIn(proxied, spelling, victim.password, { 'X-Forwarded-For': `192.0.2.${fresh++}` })).status === 200;
      outcome[name] = { reaches, blocked };
    }
    // Whatever reaches the account counts against the account's counter.
    expect(Object.entries(outcome).filter(([, o]) => o.reaches && !o.blocked).map(([name]) => name)).toEqual([]);
    expect(outcome).toEqual({
      'upper case': { reaches: true, blocked: true },
      'surrounding spaces': { reaches: true, blocked: true },
      'fullwidth letters': { reaches: true, blocked: true },
      'ligature ﬁ': { reaches: true, blocked: true },
      // Another address (i + U+0307): neither the account nor its counter.
      'İ (U+0130) for i': { reaches: false, blocked: false },
    });
  });

  it('beta grants by e-mail find the account under any spelling', async () => {
    const member = await insertUser(t.dataSource, { email: `member.fi-${randomBytes(3).toString('hex')}@example.test` });
    const res = await t.http.post('/api/v1/billing/beta/grant').set('X-Admin-API-Key', ADMIN_KEY).send({ email: spellings(member.email)['fullwidth letters'] });
    expect({ status: res.status, userId: res.body.data?.userId }).toEqual({ status: 200, userId: member.id });
  });

  it('the migration gives existing rows their canonical form; of look-alike duplicates the oldest keeps it', async () => {
    const dataSource = t.dataSource;
    // Back to the schema before the migration (undoing any later ones first), as an existing installation is.
    for (;;) {
      const [last] = await dataSource.query(`SELECT name FROM schema_migrations ORDER BY id DESC LIMIT 1`);
      await dataSource.undoLastMigration({ transaction: 'each' });
      if (last.name === 'CanonicalEmails1763760000000') break;
    }
    const tag = randomBytes(3).toString('hex');
    const insert = async (email: string, joined: string) =>
      (await dataSource.query(`INSERT INTO users (user_key, username, email, password_hash, date_joined) VALUES ($1, $2, $3, 'x', $4) RETURNING id`, [`usr_${randomBytes(8).toString('hex')}`, `m_${randomBytes(4).toString('hex')}`, email, joined]))[0].id as string;
    const older = await insert(`Mig-${tag}@Example.test`, '2020-01-01T00:00:00Z');
    const lookAlike = await insert(`ｍig-${tag}@example.test`, '2021-01-01T00:00:00Z');
    const other = await insert(`other-${tag}@example.test`, '2019-01-01T00:00:00Z');
    expect(await runMigrations(dataSource)).toContain('CanonicalEmails1763760000000');
    const rows: Array<{ id: string; email_canonical: string }> = await dataSource.query(`SELECT id, email_canonical FROM users WHERE id = ANY($1::uuid[])`, [[older, lookAlike, other]]);
    const byId = Object.fromEntries(rows.map((row) => [row.id, row.email_canonical]));
    expect(byId).toEqual({ [older]: `mig-${tag}@example.test`, [lookAlike]: `mig-${tag}@example.test#${lookAlike}`, [other]: `other-${tag}@example.test` });
    const nullable = await dataSource.query(`SELECT is_nullable FROM information_schema.columns WHERE table_name = 'users' AND column_name = 'email_canonical'`);
    expect(nullable).toEqual([{ is_nullable: 'NO' }]);
  });
});
