/**
 * A real browser for the HTML report's tests: Debian's Chromium (`.ci/run` installs it) driven by
 * playwright-core. One browser per test file; each page records every request it makes and every error.
 */
import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Where Debian installs Chromium. */
export const CHROMIUM = '/usr/bin/chromium';

/** Launches headless Chromium with nothing that reaches the network on its own. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`browser=<${CHROMIUM}> | Chromium is not installed | apt-get install -y chromium (.ci/run does)`);
  }
  return await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** A page opened on a file, with what it asked for and what went wrong in it. */
export interface OpenedPage {
  readonly page: Page;
  /** The file's own URL. */
  readonly url: string;
  /** Every URL the page requested (routed requests, and requests seen by the listener). */
  readonly requests: string[];
  /** Console errors (a CSP violation is one), uncaught errors and dialogs (`alert`, `confirm`). */
  readonly problems: string[];
}

/**
 * Opens a file in a new page of its own context. Every request goes through a route that records it and
 * lets through only the file itself.
 *
 * @param browser - the browser
 * @param file - the HTML file, absolute
 */
export async function openFile(browser: Browser, file: string): Promise<OpenedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const url = pathToFileURL(file).href;
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (request) => void requests.push(request.url()));
  await context.route('**/*', async (route) => {
    const requested = route.request().url();
    requests.push(requested);
    if (requested === url) await route.continue();
    else await route.abort();
  });
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => void problems.push(`error: ${error.message}`));
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  await page.goto(url, { timeout: 60_000 });
  return { page, url, requests, problems };
}
