import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { insertUser, type TestUser } from '#libs/testing';
import { FeedbackTokenAuthenticator } from '../../apps/feedback-export/src/token-auth/feedback-token.authenticator.js';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';

describe('feedback sites and tokens (owner JWT)', () => {
  let t: TestApp;
  let owner: TestUser;
  let other: TestUser;
  let jwt: string;
  let otherJwt: string;
  let auth: FeedbackTokenAuthenticator;

  beforeAll(async () => {
    t = await startWithDatabase('feedback-export');
    owner = await insertUser(t.dataSource);
    other = await insertUser(t.dataSource);
    jwt = await t.accessTokenFor(owner.id);
    otherJwt = await t.accessTokenFor(other.id);
    auth = t.app.get(FeedbackTokenAuthenticator);
  });
  afterAll(async () => {
    await t?.close();
  });

  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

  it('creates a site with a derived, filesystem-safe slug and a public siteKey', async () => {
    const res = await t.http.post('/api/v1/sites').set(bearer(jwt)).send({ name: '  Café Müller / Shop ' }).expect(201);
    expect(res.body.success).toBe(true);
    const { site, siteKey } = res.body.data;
    expect(site).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Café Müller / Shop',
      slug: 'cafe-muller-shop',
      siteKey,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      readTokenCreatedAt: null,
      writeTokenCreatedAt: null,
    });
    expect(siteKey).toMatch(/^site_[A-Za-z0-9_-]{24}$/);
  });

  it('makes derived slugs unique within the account but not across accounts', async () => {
    const a = await t.http.post('/api/v1/sites').set(bearer(jwt)).send({ name: 'Blog' }).expect(201);
    const b = await t.http.post('/api/v1/sites').set(bearer(jwt)).send({ name: 'blog!' }).expect(201);
    const c = await t.http.post('/api/v1/sites').set(bearer(otherJwt)).send({ name: 'Blog' }).expect(201);
    expect([a.body.data.site.slug, b.body.data.site.slug, c.body.data.site.slug]).toEqual(['blog', 'blog-2', 'blog']);
    expect((await t.http.post('/api/v1/sites').set(bearer(jwt)).send({ name: '***' }).expect(201)).body.data.site.slug).toBe('site');
    expect((await t.http.post('/api/v1/sites').set(bearer(jwt)).send({ name: 'CON' }).expect(201)).body.data.site.slug).toBe('con-site');
  });

  it('takes an explicit slug, refuses a taken one with 409 and an unsafe one with 400', async () => {
    await t.http.post('/api/v1/sites').set(bearer(jwt)).send({ name: 'Docs', slug: 'docs' }).expect(201);
    const taken = await t.http.post('/api/v1/sites').set(bearer(jwt)).send({ name: 'Docs 2', slug: 'docs' }).expect(409);
    expect(taken.body.error.code).toBe('CONFLICT');
    for (const slug of ['../etc', 'Docs', 'a b', '-x', 'x-', 'nul', '', 'a'.repeat(65), 'é']) {
      const res = await t.http.post('/api/v1/sites').set(bearer(jwt)).send({ name: 'X', slug }).expect(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('validates the body: blank or long names, unknown properties, non-objects', async () => {
    for (const body of [{}, { name: '   ' }, { name: 'x'.repeat(101) }, { name: 5 }, { name: 'ok', extra: 1 }]) {
      const res = await t.http.post('/api/v1/sites').set(bearer(jwt)).send(body).expect(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('lists, gets, renames (slug unchanged) and deletes only the owner\'s sites', async () => {
    const created = (await t.http.post('/api/v1/sites').set(bearer(jwt)).send({ name: 'Shop' }).expect(201)).body.data.site;
    const list = (await t.http.get('/api/v1/sites').set(bearer(jwt)).expect(200)).body.data.sites;
    expect(list.map((s: { id: string }) => s.id)).toContain(created.id);
    const otherList = (await t.http.get('/api/v1/sites').set(bearer(otherJwt)).expect(200)).body.data.sites;
    expect(otherList.map((s: { id: string }) => s.id)).not.toContain(created.id);

    expect((await t.http.get(`/api/v1/sites/${created.id}`).set(bearer(jwt)).expect(200)).body.data.site).toEqual(created);
    expect((await t.http.get(`/api/v1/sites/${created.id}`).set(bearer(otherJwt)).expect(404)).body.error.code).toBe('NOT_FOUND');
    expect((await t.http.get('/api/v1/sites/not-a-uuid').set(bearer(jwt)).expect(400)).body.error.code).toBe('VALIDATION_ERROR');

    const renamed = (await t.http.patch(`/api/v1/sites/${created.id}`).set(bearer(jwt)).send({ name: 'Shop EU' }).expect(200)).body.data.site;
    expect(renamed).toMatchObject({ id: created.id, name: 'Shop EU', slug: created.slug });
    await t.http.patch(`/api/v1/sites/${created.id}`).set(bearer(jwt)).send({ name: 'x', slug: 'new' }).expect(400);
    await t.http.patch(`/api/v1/sites/${created.id}`).set(bearer(otherJwt)).send({ name: 'Mine' }).expect(404);

    await t.http.delete(`/api/v1/sites/${created.id}`).set(bearer(otherJwt)).expect(404);
    expect((await t.http.delete(`/api/v1/sites/${created.id}`).set(bearer(jwt)).expect(200)).body.data).toEqual({ id: created.id, deleted: true });
    await t.http.get(`/api/v1/sites/${created.id}`).set(bearer(jwt)).expect(404);
  });

  it('requires a JWT on owner routes', async () => {
    for (const res of [await t.http.get('/api/v1/sites'), await t.http.post('/api/v1/portfolio-token/rotate'), await t.http.get('/api/v1/sites').set(bearer('sk_x'))]) {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('AUTH_REQUIRED');
    }
  });

  it('issues sk_/wk_/ok_ tokens once, stores only hashes, and kills the old token on rotation', async () => {
    const site = (await t.http.post('/api/v1/sites').set(bearer(jwt)).send({ name: 'Tokens' }).expect(201)).body.data.site;
    const read1 = (await t.http.post(`/api/v1/sites/${site.id}/tokens/read/rotate`).set(bearer(jwt)).expect(200)).body.data.token;
    const write1 = (await t.http.post(`/api/v1/sites/${site.id}/tokens/write/rotate`).set(bearer(jwt)).expect(200)).body.data.token;
    const ok1 = (await t.http.post('/api/v1/portfolio-token/rotate').set(bearer(jwt)).expect(200)).body.data.token;
    expect(read1).toMatch(/^sk_[A-Za-z0-9_-]{43}$/);
    expect(write1).toMatch(/^wk_[A-Za-z0-9_-]{43}$/);
    expect(ok1).toMatch(/^ok_[A-Za-z0-9_-]{43}$/);

    const stored = await t.dataSource.query(`SELECT token_hash FROM feedback_tokens WHERE owner_id = $1`, [owner.id]);
    const dump = JSON.stringify(stored);
    for (const token of [read1, write1, ok1]) expect(dump).not.toContain(token.slice(3));

    const readPrincipal = await auth.authenticate(read1, ['read', 'write']);
    expect(readPrincipal).toEqual({ kind: 'site', siteId: site.id, ownerId: owner.id, scope: 'read', tokenBudget: `${site.id}:read` });
    expect(await auth.authenticate(write1, ['write'])).toMatchObject({ kind: 'site', siteId: site.id, scope: 'write' });
    expect(await auth.authenticate(ok1, ['portfolio'])).toEqual({ kind: 'portfolio', ownerId: owner.id, tokenBudget: owner.id });

    // Wrong kind for the route, missing, malformed.
    await expect(auth.authenticate(read1, ['write'])).rejects.toMatchObject({ code: 'INVALID_TOKEN', status: 401 });
    await expect(auth.authenticate(ok1, ['read', 'write'])).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    await expect(auth.authenticate(write1, ['portfolio'])).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    await expect(auth.authenticate(undefined, ['read'])).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    await expect(auth.authenticate('sk_short', ['read'])).rejects.toMatchObject({ code: 'INVALID_TOKEN' });

    const read2 = (await t.http.post(`/api/v1/sites/${site.id}/tokens/read/rotate`).set(bearer(jwt)).expect(200)).body.data.token;
    const ok2 = (await t.http.post('/api/v1/portfolio-token/rotate').set(bearer(jwt)).expect(200)).body.data.token;
    expect(read2).not.toBe(read1);
    await expect(auth.authenticate(read1, ['read', 'write'])).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    await expect(auth.authenticate(ok1, ['portfolio'])).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    expect(await auth.authenticate(read2, ['read', 'write'])).toMatchObject({ siteId: site.id, scope: 'read' });
    expect(await auth.authenticate(ok2, ['portfolio'])).toMatchObject({ ownerId: owner.id });
    // Rotating the read token leaves the write token alone.
    expect(await auth.authenticate(write1, ['write'])).toMatchObject({ scope: 'write' });

    const refreshed = (await t.http.get(`/api/v1/sites/${site.id}`).set(bearer(jwt)).expect(200)).body.data.site;
    expect(refreshed.readTokenCreatedAt).toEqual(expect.any(String));
    expect(refreshed.writeTokenCreatedAt).toEqual(expect.any(String));

    // Another account's site: 404, and no token is created for it.
    await t.http.post(`/api/v1/sites/${site.id}/tokens/write/rotate`).set(bearer(otherJwt)).expect(404);
    expect(await auth.authenticate(write1, ['write'])).toMatchObject({ scope: 'write' });

    // Deleting the site kills its tokens; the account's portfolio token survives.
    await t.http.delete(`/api/v1/sites/${site.id}`).set(bearer(jwt)).expect(200);
    await expect(auth.authenticate(write1, ['write'])).rejects.toMatchObject({ code: 'INVALID_TOKEN' });
    expect(await auth.authenticate(ok2, ['portfolio'])).toMatchObject({ ownerId: owner.id });
    expect(t.logs.leaksOf([read1, read2, write1, ok1, ok2])).toEqual([]);
  });

  it('removes sites, tokens and feedback when the account is deleted', async () => {
    const user = await insertUser(t.dataSource);
    const token = await t.accessTokenFor(user.id);
    const site = (await t.http.post('/api/v1/sites').set(bearer(token)).send({ name: 'Gone' }).expect(201)).body.data.site;
    await t.http.post(`/api/v1/sites/${site.id}/tokens/read/rotate`).set(bearer(token)).expect(200);
    await t.http.post('/api/v1/portfolio-token/rotate').set(bearer(token)).expect(200);
    await t.dataSource.query(`DELETE FROM users WHERE id = $1`, [user.id]);
    const [counts] = await t.dataSource.query(
      `SELECT (SELECT count(*) FROM sites WHERE owner_id = $1)::int AS sites, (SELECT count(*) FROM feedback_tokens WHERE owner_id = $1)::int AS tokens`,
      [user.id],
    );
    expect(counts).toEqual({ sites: 0, tokens: 0 });
  });
});
