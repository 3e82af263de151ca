import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { startWithDatabase, type TestApp } from '../support/test-apps.js';
import { createOwner, createSite } from '../feedback/feedback-fixtures.js';
import { expectConformance } from './support/conformance.js';

/** The feedback MCP endpoint passes the same official conformance scenarios as the todo one, with a site's sk_ token. */
describe('feedback MCP endpoint conformance (POST /api/v1/mcp of feedback-export)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startWithDatabase('feedback-export');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('passes the conformance server scenarios initialize, ping, tools-list (behind a proxy that adds a site sk_ read token)', async () => {
    const site = await createSite(t, await createOwner(t), 'Conformance');
    expect(site.readToken).toMatch(/^sk_/);
    await expectConformance(t.baseUrl, '/api/v1/mcp', { authorization: `Bearer ${site.readToken}` });
  }, 120_000);
});
