import { randomBytes } from 'node:crypto';
import { expect } from '@jest/globals';
import type { TestApp } from '../support/test-apps.js';

export interface SignedUp {
  email: string;
  password: string;
  token: string;
  refreshToken: string;
  userId: string;
}

export function uniqueEmail(tag = 'user'): string {
  return `${tag}-${randomBytes(4).toString('hex')}@example.test`;
}

export function strongPassword(): string {
  return `pw-${randomBytes(8).toString('hex')}-Secret`;
}

/** Signs up through the API and returns the credentials and tokens. */
export async function signUp(t: TestApp, overrides: Record<string, unknown> = {}): Promise<SignedUp> {
  const email = (overrides.email as string) ?? uniqueEmail();
  const password = (overrides.password as string) ?? strongPassword();
  const res = await t.http.post('/api/v1/auth/signup').send({ email, password, passwordConfirm: password, ...overrides });
  expect(res.status).toBe(201);
  return { email, password, token: res.body.data.token, refreshToken: res.body.data.refreshToken, userId: res.body.data.user.id };
}

export function logIn(t: TestApp, email: string, password: string, headers: Record<string, string> = {}) {
  return t.http.post('/api/v1/auth/login').set(headers).send({ email, password });
}

export function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}

export function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** The claims of a JWT, read without verification (tests only). */
export function claimsOf(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
}

export function expectError(res: { status: number; body: any }, status: number, code: string): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: { success: false, error: expect.objectContaining({ code, message: expect.any(String) }) },
  });
}
