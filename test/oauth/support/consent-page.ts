import type { Browser } from 'playwright-core';

export interface ConsentChoices {
  email: string;
  password: string;
  /** Scopes to untick before allowing. */
  untick?: string[];
  /** The sites to tick on the second step (asked when a feedback site scope is left ticked). */
  sites?: string[];
}

/**
 * The user's side of an agent's sign-in, in the test suite's browser: sign in on the consent page,
 * untick scopes, allow, tick the sites when asked; answers the code the browser is sent back to the
 * agent's redirect URL with (`error:<code>` for a refusal; nothing listens there, the request itself
 * carries it) and the sites the page listed.
 */
export async function consentInBrowser(browser: Browser, url: URL, redirectUrl: string, choices: ConsentChoices): Promise<{ code: string; sitesListed: string[] }> {
  const page = await browser.newPage();
  try {
    let resolveCode!: (code: string) => void;
    const code = new Promise<string>((resolve) => (resolveCode = resolve));
    page.on('request', (request) => {
      if (!request.url().startsWith(redirectUrl)) return;
      const params = new URL(request.url()).searchParams;
      resolveCode(params.get('code') ?? `error:${params.get('error')}`);
    });
    await page.goto(url.href);
    await page.getByLabel('E-mail').fill(choices.email);
    await page.getByLabel('Password').fill(choices.password);
    for (const scope of choices.untick ?? []) await page.getByRole('checkbox', { name: new RegExp(scope) }).uncheck();
    await page.getByRole('button', { name: 'Allow' }).click();
    let sitesListed: string[] = [];
    if (choices.sites) {
      const siteBoxes = page.getByRole('group', { name: 'Sites' });
      await siteBoxes.getByRole('checkbox').first().waitFor();
      sitesListed = (await siteBoxes.locator('label').allTextContents()).map((text) => text.trim());
      for (const site of choices.sites) await siteBoxes.getByRole('checkbox', { name: new RegExp(site) }).check();
      await page.getByRole('button', { name: 'Allow' }).click();
    }
    return { code: await code, sitesListed };
  } finally {
    await page.close();
  }
}
