import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { Browser, Page } from 'playwright-core';
import { VirtualKeyService } from '../src/keys/virtual-key.service';
import { UsageReport } from '../src/usage/usage-report.service';
import { ADMIN_KEY } from './support/admin';
import { launchChromium, recordPageProblems } from './support/browser';
import { buildDashboard } from './support/dashboard';
import { eventually } from './support/eventually';
import { startTestApp, TestApp } from './support/test-app';

/** Screenshots and the measured load time, kept as test artifacts (docs/dashboard.md shows the screenshots, kept in docs/dashboard/). */
const ARTIFACTS = join(__dirname, '..', 'artifacts', 'dashboard');

/** Pico-dollars as the shortest decimal string of US dollars, as the gateway writes costs. */
function usd(pico: bigint): string {
  const digits = pico.toString().padStart(13, '0');
  const fraction = digits.slice(-12).replace(/0+$/, '');
  return `${digits.slice(0, -12)}${fraction ? `.${fraction}` : ''}`;
}

describe('dashboard in a real browser', () => {
  let gateway: TestApp;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];

  beforeAll(async () => {
    buildDashboard();
    mkdirSync(ARTIFACTS, { recursive: true });
    // The real limits (10 calls per 10 s per session): normal use must stay inside them.
    // alpha-k3 carries a price, so the Usage page has an exact cost to show.
    gateway = await startTestApp({
      env: { ADMIN_API_KEY: ADMIN_KEY, KEY_CACHE_TTL_MS: '0' },
      models: {
        'alpha-k3': [{ provider: 'mock', price: { input: '0.15', output: '0.6' } }],
        'beta-v4-flash-0731': [{ provider: 'mock' }],
      },
    });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gateway.url });
    page = await context.newPage();
    // Any script error, CSP violation or failed call is a defect of the page.
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        problems.push(message.text());
    });
    // The first call asks whether a session exists; its 401 before sign-in is the expected answer.
    recordPageProblems(
      page,
      problems,
      (response) =>
        response.status() === 401 &&
        response.url().endsWith('/dashboard/api/session') &&
        response.request().method() === 'GET',
    );
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });

  const shot = (name: string) =>
    page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

  it('signs in, shows the base URL, creates a key, shows its usage, and revokes it', async () => {
    const started = Date.now();
    await page.goto(`${gateway.url}/dashboard`);
    await page.getByLabel('Admin key').waitFor();
    const loadMs = Date.now() - started;
    const navigation = await page.evaluate(() => {
      const [entry] = performance.getEntriesByType('navigation') as PerformanceNavigationTiming[];
      return {
        domContentLoadedMs: Math.round(entry.domContentLoadedEventEnd),
        loadMs: Math.round(entry.loadEventEnd),
      };
    });
    writeFileSync(
      join(ARTIFACTS, 'page-load.json'),
      `${JSON.stringify({ signInFormVisibleMs: loadMs, ...navigation }, null, 2)}\n`,
    );
    await shot('sign-in');

    // Keyboard only: the form focuses the key input, Enter submits through the "Sign in" button.
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('admin-key');
    await page.keyboard.type(ADMIN_KEY);
    await page.keyboard.press('Enter');

    // Overview: the base URL clients use.
    await expectText(page.locator('#base-url'), `${gateway.url}/v1`);
    await page.getByText('alpha-k3', { exact: true }).first().waitFor();
    expect(await page.locator('details[open] pre').textContent()).toContain(
      `curl ${gateway.url}/v1/chat/completions`,
    );
    await shot('overview');

    // Keys: create one and read its secret, shown once.
    await page.getByRole('link', { name: 'Keys' }).click();
    // It starts with @, which a spreadsheet would read as a formula: the CSV export must defuse it.
    const name = `@browser-${process.pid}-${Date.now()}`;
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('Requests per minute').fill('60');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.locator('#new-secret').textContent({ timeout: 5_000 }))!.trim();
    expect(secret).toMatch(/^gk-/);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await page.getByRole('row', { name: new RegExp(name) }).waitFor();
    await shot('keys');

    // The secret works on /v1, and the call shows up on the Usage page.
    const client = new OpenAI({ apiKey: secret, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const completion = await client.chat.completions.create({
      model: 'alpha-k3',
      messages: [{ role: 'user', content: 'hello from the browser test' }],
    });
    expect(completion.choices[0].message.content).toEqual(expect.any(String));
    // Wait for the usage flush on the server side, so the page is loaded once.
    const usage = gateway.app.get(UsageReport);
    const { id: keyId } = await gateway.app.get(VirtualKeyService).get(name);
    await eventually(
      async () => {
        expect((await usage.report({ groupBy: 'key', keyId })).groups[0]?.requests).toBe(1);
      },
      5_000,
      100,
    );
    await page.getByRole('link', { name: 'Usage' }).click();
    const row = page.locator('#usage-totals tbody tr', { hasText: name });
    await row.waitFor();
    expect(await row.locator('td').first().textContent()).toBe('1');
    // $0.15 and $0.60 per million tokens: 150,000 and 600,000 pico-dollars a token, summed exactly.
    const { prompt_tokens, completion_tokens } = completion.usage!;
    const cost = usd(BigInt(prompt_tokens) * 150_000n + BigInt(completion_tokens) * 600_000n);
    expect(await row.locator('td').last().textContent()).toBe(cost);
    expect(await page.locator('.chart canvas').count()).toBeGreaterThanOrEqual(4); // uPlot drew the charts
    await shot('usage');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    const csv = readFileSync((await download.path())!, 'utf8').split('\r\n');
    expect(csv[0]).toBe(
      'time,group_by,group,requests,errors,prompt_tokens,completion_tokens,total_tokens,avg_latency_ms,cost_usd',
    );
    const keyLine = csv.find((line) => line.includes(`'${name}`));
    expect(keyLine).toMatch(new RegExp(`,key,'${name},1,0,`));
    expect(keyLine!.split(',').at(-1)).toBe(cost);
    expect(csv.some((line) => line.includes(',endpoint,chat_completions,'))).toBe(true);
    // Usage per endpoint: the API each request came in by.
    await page.selectOption('#usage-group', 'endpoint');
    await page.locator('#usage-totals tbody tr', { hasText: 'chat_completions' }).waitFor();
    expect(await page.locator('#usage-totals thead th').first().textContent()).toBe('Endpoint');

    // Revoke it in the page (with confirmation); the next /v1 call is refused.
    await page.getByRole('link', { name: 'Keys' }).click();
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: `Revoke ${name}` }).click();
    await page.getByRole('row', { name: new RegExp(`${name}.*revoked`) }).waitFor();
    const refused = await client.chat.completions
      .create({ model: 'alpha-k3', messages: [{ role: 'user', content: 'again' }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((refused as InstanceType<typeof OpenAI.AuthenticationError>).code).toBe('key_revoked');

    expect(problems).toEqual([]);
  }, 60_000);
});

async function expectText(locator: ReturnType<Page['locator']>, text: string): Promise<void> {
  await locator.waitFor({ timeout: 5_000 });
  expect((await locator.textContent())?.trim()).toBe(text);
}
