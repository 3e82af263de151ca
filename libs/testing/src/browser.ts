import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
// Types only: playwright-core is loaded by launchBrowser, not by every test file importing #libs/testing.
import type { Browser, LaunchOptions, Page } from 'playwright-core';
import { isExecutableFile } from './outside-program.js';

/** Named, so knip sees `require.resolve('@sparticuz/chromium')` as a use of the package. */
const require = createRequire(import.meta.url);

/** Debian's chromium package. */
const SYSTEM_CHROMIUM = '/usr/bin/chromium';

/**
 * Headless Chromium as root in a container on a closed network: no sandbox, no GPU, nothing that
 * calls home (refused connections otherwise pile up at every start).
 */
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'];

interface ChromiumChoice {
  executablePath: string;
  /** `CHROMIUM_PATH`, Debian's /usr/bin/chromium, or the build shipped in the npm package @sparticuz/chromium. */
  source: 'CHROMIUM_PATH' | 'system' | 'npm';
  /** Extra environment for the browser process (the npm build's own NSS libraries). */
  env?: Record<string, string>;
}

/**
 * Which Chromium the browser tests drive. `TEST_BROWSER=npm` forces the npm build (to check a machine
 * without a system browser), `TEST_BROWSER=system` requires the system's; by default `CHROMIUM_PATH`,
 * else /usr/bin/chromium when installed, else the npm build.
 */
function chooseChromium(env: NodeJS.ProcessEnv = process.env): ChromiumChoice {
  const wanted = env.TEST_BROWSER ?? 'auto';
  if (!['auto', 'system', 'npm'].includes(wanted)) throw new Error(`TEST_BROWSER must be auto, system or npm, not "${wanted}"`);
  if (wanted !== 'npm') {
    if (env.CHROMIUM_PATH) {
      if (!isExecutableFile(env.CHROMIUM_PATH)) throw new Error(`CHROMIUM_PATH=${env.CHROMIUM_PATH} is not an executable file`);
      return { executablePath: env.CHROMIUM_PATH, source: 'CHROMIUM_PATH' };
    }
    if (isExecutableFile(SYSTEM_CHROMIUM)) return { executablePath: SYSTEM_CHROMIUM, source: 'system' };
    if (wanted === 'system') throw new Error(`TEST_BROWSER=system but ${SYSTEM_CHROMIUM} is not installed and CHROMIUM_PATH is unset`);
  }
  return npmChromium();
}

/**
 * The Chromium build inside @sparticuz/chromium (brotli-packed in the npm package), unpacked once
 * into node_modules/.cache. The package unpacks into os.tmpdir(), so it runs in a child process
 * whose TMPDIR is a fresh staging directory, which is then renamed into place: parallel test
 * workers never see half-written files. Its own copies of NSS come along, so the browser needs
 * nothing from the system beyond the C library.
 */
function npmChromium(): ChromiumChoice {
  const entry = require.resolve('@sparticuz/chromium');
  const packageDir = join(dirname(entry), '..');
  const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { version: string };
  const cacheRoot = join(packageDir, '..', '..', '.cache');
  const dir = join(cacheRoot, `sparticuz-chromium-${version}`);
  if (!existsSync(join(dir, 'chromium'))) {
    mkdirSync(cacheRoot, { recursive: true });
    const staging = mkdtempSync(join(cacheRoot, 'sparticuz-chromium-staging-'));
    try {
      const unpack =
        `const { default: chromium, inflate } = await import(${JSON.stringify(pathToFileURL(entry).href)});` +
        `await chromium.executablePath();` +
        `await inflate(${JSON.stringify(join(packageDir, 'bin', 'al2023.tar.br'))});`;
      execFileSync(process.execPath, ['--input-type=module', '-e', unpack], { env: { ...process.env, TMPDIR: staging }, stdio: ['ignore', 'ignore', 'inherit'], timeout: 120_000 });
      renameSync(staging, dir);
    } catch (error) {
      rmSync(staging, { recursive: true, force: true });
      // Another worker unpacked it first: use theirs.
      if (!existsSync(join(dir, 'chromium'))) throw error;
    }
  }
  return { executablePath: join(dir, 'chromium'), source: 'npm', env: { LD_LIBRARY_PATH: join(dir, 'al2023', 'lib') } };
}

/**
 * Headless Chromium for a browser test (playwright-core): the one way every browser suite starts
 * its browser, so each runs under plain `npm test` with nothing installed on the machine.
 */
export async function launchBrowser(options: LaunchOptions = {}): Promise<Browser> {
  const choice = chooseChromium();
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    headless: true,
    ...options,
    executablePath: choice.executablePath,
    args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
    env: choice.env ? { ...process.env, ...choice.env, ...options.env } : options.env,
  });
}

/**
 * What went wrong on a page while a test drove it: uncaught errors and console errors (`errors`), and every answer
 * of 400 or more it received (`failed`, as "status METHOD url"). Flows that expect none assert both empty.
 */
export function watchPage(page: Page): { errors: string[]; failed: string[] } {
  const seen = { errors: [] as string[], failed: [] as string[] };
  page.on('pageerror', (error) => seen.errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') seen.errors.push(message.text());
  });
  page.on('response', (response) => {
    if (response.status() >= 400) seen.failed.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  return seen;
}

/**
 * Gives `page` a virtual authenticator of its own through the DevTools protocol: a platform authenticator holding
 * discoverable passkeys, which verifies its user, so WebAuthn ceremonies complete with no one at the keyboard.
 */
export async function addVirtualAuthenticator(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
  });
}
