import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SignJWT } from 'jose';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { bearer, createOwner, createSite, type TestOwner, type TestSite } from './feedback-fixtures.js';

const SUBMIT = '/api/v1/widget/feedback';

/** A reporter token as a host's server makes it: JWT HS256 with the site's identity secret. */
async function sign(secret: string, claims: Record<string, unknown>, exp: number | null = Math.floor(Date.now() / 1000) + 600, alg = 'HS256'): Promise<string> {
  const jwt = new SignJWT(claims).setProtectedHeader({ alg }).setIssuedAt();
  if (exp !== null) jwt.setExpirationTime(exp);
  return jwt.sign(new TextEncoder().encode(secret));
}

/**
 * Signed reporter identity: the owner issues a per-site identity secret (shown once, sealed at rest, rotatable),
 * the host's server signs {sub, email, name, exp} with it, the widget sends the token, and the verified reporter
 * shows in the triage view and both exports. Unsigned, forged, expired and other sites' tokens are refused.
 */
describe('signed reporter identity', () => {
  let t: TestApp;
  let owner: TestOwner;
  let other: TestOwner;
  let site: TestSite;
  let sibling: TestSite;
  let secret: string;
  let siblingSecret: string;

  const submit = (userToken: string | undefined, message = 'Checkout button does nothing') =>
    t.http.post(SUBMIT).send({ siteKey: site.siteKey, type: 'bug', message, pageUrl: 'https://shop.example/cart', userToken });
  const rotate = (siteId: string, jwt = owner.jwt) => t.http.post(`/api/v1/sites/${siteId}/identity-secret`).set(bearer(jwt));
  const count = async () => (await t.dataSource.query(`SELECT count(*)::int AS n FROM feedback WHERE site_id = $1`, [site.id]))[0].n as number;

  beforeAll(async () => {
    t = await startWithDatabase('feedback-export');
    owner = await createOwner(t);
    other = await createOwner(t);
    site = await createSite(t, owner, 'Shop');
    sibling = await createSite(t, owner, 'Blog');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses a token while the site has no identity secret, and stores nothing', async () => {
    const res = await submit(await sign('idsec_made-up-by-the-host', { sub: 'u1' })).expect(400);
    expect(res.body.error.code).toBe('IDENTITY_TOKEN_INVALID');
    expect(res.body.error.message).toMatch(/identity secret/);
    expect(await count()).toBe(0);
  });

  it('issues the secret once to the owner only, stored sealed', async () => {
    await t.http.post(`/api/v1/sites/${site.id}/identity-secret`).expect(401);
    await rotate(site.id, other.jwt).expect(404);
    secret = (await rotate(site.id).expect(200)).body.data.secret;
    siblingSecret = (await rotate(sibling.id).expect(200)).body.data.secret;
    expect(secret).toMatch(/^idsec_[A-Za-z0-9_-]{43}$/);
    const [row] = await t.dataSource.query(`SELECT identity_secret_sealed AS sealed, identity_secret_created_at AS at FROM sites WHERE id = $1`, [site.id]);
    expect(row.at).not.toBeNull();
    expect(row.sealed).toMatch(/^v1\./);
    expect(row.sealed).not.toContain(secret.slice(6));
  });

  it('stores the signed reporter and shows it in the triage view and both exports; anonymous items have none', async () => {
    const reporter = { id: 'user_8231', email: 'ada@example.com', name: 'Ada Lovelace' };
    const signed = (await submit(await sign(secret, { sub: reporter.id, email: reporter.email, name: reporter.name, role: 'ignored' })).expect(201)).body.data.id;
    const idOnly = (await submit(await sign(secret, { sub: 'user_9' }), 'id only').expect(201)).body.data.id;
    const anonymous = (await submit(undefined, 'anonymous').expect(201)).body.data.id;

    const exported = (await t.http.get('/api/v1/export/feedback').set(bearer(site.readToken)).expect(200)).body.data.feedback;
    const byId = (items: Array<{ id: string }>) => new Map(items.map((item) => [item.id, item as Record<string, unknown>]));
    expect(byId(exported).get(signed)!.reporter).toEqual(reporter);
    expect(byId(exported).get(idOnly)!.reporter).toEqual({ id: 'user_9' });
    expect(byId(exported).get(anonymous)).not.toHaveProperty('reporter');
    const portfolio = (await t.http.get('/api/v1/export/portfolio/feedback').set(bearer(owner.portfolioToken)).expect(200)).body.data.feedback;
    expect(byId(portfolio).get(signed)).toMatchObject({ reporter, siteSlug: site.slug });
    const triage = (await t.http.get(`/api/v1/sites/${site.id}/feedback/search`).set(bearer(owner.jwt)).expect(200)).body.data.feedback;
    expect(byId(triage).get(signed)!.reporter).toEqual(reporter);

    // The CSV download carries the reporter in its last three columns; empty cells when anonymous.
    const csv = (await t.http.get(`/api/v1/sites/${site.id}/feedback/export.csv`).set(bearer(owner.jwt)).buffer(true).expect(200)).text.split('\r\n');
    expect(csv[0].endsWith(',"reporterId","reporterEmail","reporterName"')).toBe(true);
    const csvRow = (id: string) => csv.find((line) => line.startsWith(`"${id}"`))!;
    expect(csvRow(signed).endsWith(',"user_8231","ada@example.com","Ada Lovelace"')).toBe(true);
    expect(csvRow(idOnly).endsWith(',"user_9",,')).toBe(true);
    expect(csvRow(anonymous).endsWith(',,,')).toBe(true);
  });

  it('refuses forged, other-site, expired, unbounded and malformed tokens with 400 IDENTITY_TOKEN_INVALID, storing nothing', async () => {
    const before = await count();
    const now = Math.floor(Date.now() / 1000);
    const cases: Array<[string, string]> = [
      ['forged signature', await sign('idsec_' + 'A'.repeat(43), { sub: 'u1' })],
      ["another site's secret", await sign(siblingSecret, { sub: 'u1' })],
      ['expired', await sign(secret, { sub: 'u1' }, now - 60)],
      ['no exp', await sign(secret, { sub: 'u1' }, null)],
      ['exp too far ahead', await sign(secret, { sub: 'u1' }, now + 2 * 24 * 3600)],
      ['no sub', await sign(secret, { email: 'a@example.com' })],
      ['another algorithm', await sign(secret, { sub: 'u1' }, now + 600, 'HS512')],
      ['bad email', await sign(secret, { sub: 'u1', email: 'not-an-address' })],
      ['name too long', await sign(secret, { sub: 'u1', name: 'n'.repeat(129) })],
      ['id too long', await sign(secret, { sub: 'u'.repeat(129) })],
      ['not a JWT', 'hello'],
      ['unsigned (alg none)', `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'u1', exp: now + 600 })).toString('base64url')}.`],
    ];
    for (const [label, token] of cases) {
      const res = await submit(token);
      expect({ label, status: res.status, code: res.body.error?.code }).toEqual({ label, status: 400, code: 'IDENTITY_TOKEN_INVALID' });
    }
    const tooLong = await submit('x'.repeat(4097)).expect(400);
    expect(tooLong.body.error.code).toBe('VALIDATION_ERROR');
    expect(await count()).toBe(before);
  });

  it('rotation invalidates the old secret at once; the new one works', async () => {
    const oldToken = await sign(secret, { sub: 'u1' });
    await submit(oldToken, 'before rotation').expect(201);
    const rotated = (await rotate(site.id).expect(200)).body.data.secret;
    expect(rotated).not.toBe(secret);
    expect((await submit(oldToken, 'after rotation').expect(400)).body.error.code).toBe('IDENTITY_TOKEN_INVALID');
    await submit(await sign(rotated, { sub: 'u1' }), 'with the new secret').expect(201);
  });
});
