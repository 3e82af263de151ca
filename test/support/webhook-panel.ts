import { expect } from '@jest/globals';
import type { Locator, Page } from 'playwright-core';
import { SCREENSHOTS_DIR } from './screenshots.js';

/**
 * Drives the shared webhook panel (libs/common/src/pages: renderWebhookPanel and webhook-panel.js) where a page mounts
 * it: `#webhooks` in the account centre, `#panel-webhooks` in the dashboard. Both browser suites walk an endpoint's
 * life through these steps; each checks what its own API and receiver saw.
 */
export class WebhookPanel {
  readonly panel: Locator;
  /** The panel's one endpoint card (the suites keep one endpoint at a time). */
  readonly card: Locator;
  /** The card's delivery rows. */
  readonly delivery: Locator;

  constructor(
    private readonly page: Page,
    scope: string,
    /** `tap` on a touch viewport. */
    private readonly press: 'click' | 'tap' = 'click',
  ) {
    this.panel = page.locator(scope);
    this.card = this.panel.locator('article[data-webhook]');
    this.delivery = this.panel.locator('tr[data-delivery]');
  }

  /** The event types offered as checkboxes (the app's catalogue). */
  offeredEventTypes(): Promise<string[]> {
    return this.panel.locator('#webhook-event-types [data-event-type]').evaluateAll((boxes) => boxes.map((box) => (box as any).value as string));
  }

  /** Fills and submits the new-endpoint form (a screenshot of the filled form when named); answers the secret the page shows once. */
  async createEndpoint(url: string, description: string, eventTypes: string[], screenshot?: string): Promise<string> {
    await this.panel.getByRole('button', { name: 'New endpoint' })[this.press]();
    await this.panel.getByLabel('URL').fill(url);
    await this.panel.getByLabel('Description').fill(description);
    for (const type of eventTypes) await this.panel.locator(`[data-event-type="${type}"]`).check();
    if (screenshot) await this.panel.locator('#webhook-editor').screenshot({ path: `${SCREENSHOTS_DIR}/${screenshot}` });
    await this.panel.getByRole('button', { name: 'Create endpoint' })[this.press]();
    const secret = (await this.panel.locator('#webhook-secret [data-secret=webhook]').textContent())!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    await this.panel.locator('#webhook-secret').getByRole('button', { name: 'Copy' }).waitFor();
    await expect(this.card.locator('.hook-url').textContent()).resolves.toBe(url);
    await expect(this.card.locator('[data-webhook-state]').textContent()).resolves.toBe('Enabled');
    return secret;
  }

  /**
   * Sends a test event from the card (of `eventType`, or the first offered) and follows its row to "delivered" with the
   * receiver's `code`, one attempt; answers the row's event id.
   */
  async sendTestEvent(code: number, eventType?: string): Promise<string> {
    if (eventType) await this.card.getByLabel('Event type of the test event').selectOption(eventType);
    await this.card.getByRole('button', { name: 'Send test event' })[this.press]();
    await this.delivery.locator('[data-delivery-status=delivered]').waitFor();
    await expect(this.delivery.locator('[data-response-code]').textContent()).resolves.toBe(String(code));
    if (eventType) expect(await this.delivery.locator('td[data-label=Event] code').textContent()).toBe(eventType);
    expect(await this.delivery.locator('td[data-label=Attempts]').textContent()).toBe('1');
    const eventId = (await this.delivery.getAttribute('data-event-id'))!;
    expect(eventId).toMatch(/^evt_test_/);
    return eventId;
  }

  /** Replays the delivery and waits for the receiver's new answer, `code`, on its row. */
  async replay(code: number): Promise<void> {
    await this.delivery.getByRole('button', { name: /^Replay/ })[this.press]();
    await this.delivery.locator(`[data-response-code="${code}"]`).waitFor();
    await this.delivery.locator('[data-delivery-status=delivered]').waitFor();
  }

  /** Disables the endpoint from the card's menu (`whileDisabled` runs then), and enables it again. */
  async disableThenEnable(whileDisabled: () => Promise<void>): Promise<void> {
    await this.menu('Disable');
    await this.card.locator('[data-webhook-state=disabled]').waitFor();
    await whileDisabled();
    await this.menu('Enable');
    await this.card.locator('[data-webhook-state=enabled]').waitFor();
  }

  /** Rotates the signing secret (asks once more); answers the new one, shown once, and the note that the previous one signs too for a while. */
  async rotateSecret(previous: string): Promise<string> {
    await this.menu('Rotate secret');
    await this.panel.getByRole('button', { name: 'Confirm: new signing secret' })[this.press]();
    const rotated = this.card.locator('[data-secret=webhook]');
    await rotated.waitFor();
    const secret = (await rotated.textContent())!;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(previous);
    await this.card.locator('p.muted').filter({ hasText: 'previous secret signs too until' }).waitFor();
    return secret;
  }

  /** Deletes the endpoint (asks once more) and waits for the empty list. */
  async deleteEndpoint(): Promise<void> {
    await this.menu('Delete');
    await this.panel.getByRole('button', { name: 'Confirm: delete this endpoint and its deliveries' })[this.press]();
    await this.panel.locator('[data-empty=webhooks]').waitFor();
  }

  private async menu(item: string): Promise<void> {
    await this.card.locator('[data-webhook-menu]')[this.press]();
    await this.card.getByRole('button', { name: item, exact: true })[this.press]();
  }
}
