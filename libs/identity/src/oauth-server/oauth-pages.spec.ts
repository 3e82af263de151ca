import { describe, expect, it } from '@jest/globals';
import { renderSignInPage, type SignInView } from './oauth-pages.js';

const VIEW: SignInView = {
  uid: 'interaction-1',
  clientName: 'Agent',
  redirectTarget: 'http://127.0.0.1/callback',
  scopes: [{ scope: 'todos:read', label: 'Read your todos', checked: true }],
};

const links = (html: string) => [...html.matchAll(/<a href="([^"]+)"/g)].map(([, href]) => href);

describe('the consent page’s sign-in', () => {
  it('links to sign-up and password reset beside the e-mail and password, and to the connected apps it promises', () => {
    expect(links(renderSignInPage(VIEW))).toEqual(['/account/sign-up', '/account/forgot-password', '/account#connected-apps']);
  });

  it('drops the sign-up and reset links once the password was right (second factor, choice)', () => {
    expect(links(renderSignInPage({ ...VIEW, secondFactor: true }))).toEqual(['/account#connected-apps']);
  });
});
