import { describe, expect, it } from '@jest/globals';
import { renderDashboardPage } from './dashboard-page.js';

describe('the dashboard’s sign-in', () => {
  it('links to the account service’s sign-up and password reset pages', () => {
    const links = [...renderDashboardPage('https://todo.example.com/').matchAll(/<a href="([^"]+)"/g)].map(([, href]) => href);
    expect(links).toEqual(expect.arrayContaining(['https://todo.example.com/account/sign-up', 'https://todo.example.com/account/forgot-password']));
  });
});
