import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page, type Response } from 'playwright-core';

/** Debian's chromium (apt-get install chromium); .ci/run installs it when missing. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Starts the browser the browser tests drive; a clear error where it is not installed. */
export function launchChromium(args: string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `No browser at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`,
    );
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', ...args] });
}

/**
 * Records the page's script errors and its refused calls (status 400 or more) in `problems`, but
 * for the answers `expected` accepts (a signed-out 401, say): each is a defect of the page.
 */
export function recordPageProblems(
  page: Page,
  problems: string[],
  expected: (response: Response) => boolean,
): void {
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('response', (response) => {
    if (response.status() >= 400 && !expected(response))
      problems.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
}
