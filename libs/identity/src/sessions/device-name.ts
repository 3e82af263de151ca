import Bowser from 'bowser';

/**
 * A person's name for the device of a User-Agent ("Chrome 131 on macOS"), for the sessions and activity lists: the
 * one place a User-Agent is read (bowser parses it). Null when neither a browser nor a system is recognised (a script's
 * "curl/8.5.0"): the raw header is still there beside it. The name is derived from the caller's own text, so it is
 * shown as text, never trusted.
 */
export function deviceName(userAgent: string | null | undefined): string | null {
  if (!userAgent) return null;
  const { browser, os } = Bowser.parse(userAgent);
  const major = browser.version?.split('.')[0];
  const app = browser.name ? (major ? `${browser.name} ${major}` : browser.name) : null;
  if (app && os.name) return `${app} on ${os.name}`;
  if (os.name) return `A browser on ${os.name}`;
  return app;
}

/** What `device` is, on a session and on an activity entry. */
export const DEVICE_DESCRIPTION =
  'The browser and system `userAgent` names, for people ("Chrome 131 on macOS"); absent when it names neither (a script’s "curl/8.5.0"). Read from the caller’s own header: a hint, not a proof';

/** `device` of a response, only when the User-Agent names one. */
export function deviceField(userAgent: string | null): { device?: string } {
  const device = deviceName(userAgent);
  return device === null ? {} : { device };
}
