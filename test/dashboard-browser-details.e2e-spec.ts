import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import request from 'supertest';
import { PrismaService } from '../src/database/prisma.service';
import { toCsv, type CsvCell } from '../src/common/http/csv';
import { BUDGET_PERIODS } from '../src/common/time/budget-period';
import { UsageReport } from '../src/usage/usage-report.service';
import { ADMIN_KEY } from './support/admin';
import { launchChromium, recordPageProblems } from './support/browser';
import { buildDashboard } from './support/dashboard';
import { eventually } from './support/eventually';
import { startTestApp, TestApp } from './support/test-app';

/** The gateway under a name with a parent domain, so that Domain= cookies can be planted. */
const HOST = 'dash.gateway.test';

/**
 * The page's details in Debian's chromium: nothing but the sign-in form before sign-in, a key
 * form that offers what the API takes and prints no "null", a CSV export by the server's rule,
 * and a planted session cookie that cannot lock the admin out.
 */
describe('dashboard details in a real browser', () => {
  let gateway: TestApp;
  let browser: Browser;
  let origin: string;
  const problems: string[] = [];

  beforeAll(async () => {
    buildDashboard();
    gateway = await startTestApp({
      env: { ADMIN_API_KEY: ADMIN_KEY, DASHBOARD_RATE_LIMIT: '1000', KEY_CACHE_TTL_MS: '0' },
    });
    origin = gateway.url.replace('127.0.0.1', HOST);
    browser = await launchChromium([`--host-resolver-rules=MAP ${HOST} 127.0.0.1`]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
  });

  /** A fresh profile; script errors and refused calls (but the signed-out 401s) are defects. */
  async function freshPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    recordPageProblems(
      page,
      problems,
      (response) => response.status() === 401 && response.url().includes('/dashboard/api/'),
    );
    return { context, page };
  }

  async function signIn(page: Page): Promise<void> {
    await page.getByLabel('Admin key').fill(ADMIN_KEY);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
  }

  /** What a person sees: the rendered text of the whole page (hidden elements have none). */
  const visibleText = (page: Page) => page.locator('body').innerText();

  /**
   * The same without the lines that are key or team names: other test files share this database,
   * and a name may be any text, "null" included (the hostile-input test makes one).
   */
  async function textBesideNames(page: Page): Promise<string> {
    const prisma = gateway.app.get(PrismaService);
    const [keys, teams] = await Promise.all([
      prisma.virtualKey.findMany({ select: { name: true } }),
      prisma.team.findMany({ select: { name: true } }),
    ]);
    const names = new Set([...keys, ...teams].map((row) => row.name));
    const lines = (await visibleText(page)).split('\n');
    return lines.filter((line) => !names.has(line.trim())).join('\n');
  }

  it('shows no navigation, no Sign out and no stray text before sign-in', async () => {
    const { context, page } = await freshPage();
    // Hold the sign-in options back, to see the page while it waits for them too.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/dashboard/api/session/options', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${origin}/dashboard`);
    await page.getByText('Loading…').waitFor();
    const skip = 'Skip to content'; // off-screen until focused
    expect(await visibleText(page)).toBe(`${skip}\n\nLoading…`);
    release();
    await page.getByLabel('Admin key').waitFor();
    expect(await page.locator('header.top').isVisible()).toBe(false);
    expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);
    expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(false);
    expect(await visibleText(page)).toBe(`${skip}\n${await page.locator('main').innerText()}`);
    await signIn(page);
    expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(true);
    await context.close();
    expect(problems).toEqual([]);
  });

  it('offers exactly the budget periods the API takes and a dollar budget; prints no "null"', async () => {
    const { context, page } = await freshPage();
    await page.goto(`${origin}/dashboard#/keys`);
    await signIn(page);
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('heading', { name: 'Virtual keys' }).waitFor();
    expect(await textBesideNames(page)).not.toMatch(/\bnull\b|\bundefined\b/);
    const periods = await page
      .locator('#key-period option')
      .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
    expect(periods).toEqual([...BUDGET_PERIODS]);
    expect(await page.locator('#key-period').inputValue()).toBe('month');

    const name = `usd-${process.pid}-${Date.now()}`;
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByLabel('Dollar budget (USD)').fill('2.50');
    await page.getByLabel('Budget period').selectOption('total');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#new-secret').waitFor();
    const created = await request(gateway.url)
      .get(`/admin/keys/${name}`)
      .set('Authorization', `Bearer ${ADMIN_KEY}`);
    expect(created.body).toMatchObject({ budget_usd: '2.5', budget_period: 'total' });
    const row = page.getByRole('row', { name: new RegExp(name) });
    expect(await row.locator('td').nth(3).innerText()).toBe('$2.5/total');

    // A token budget with the period left as offered; no budget sends no period.
    const tokens = `tokens-${process.pid}-${Date.now()}`;
    await page.getByLabel('Name', { exact: true }).fill(tokens);
    await page.getByLabel('Token budget').fill('5000');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('row', { name: new RegExp(tokens) }).waitFor();
    const plain = `plain-${process.pid}-${Date.now()}`;
    await page.getByLabel('Name', { exact: true }).fill(plain);
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('row', { name: new RegExp(plain) }).waitFor();
    const admin = (key: string) =>
      request(gateway.url).get(`/admin/keys/${key}`).set('Authorization', `Bearer ${ADMIN_KEY}`);
    expect((await admin(tokens)).body).toMatchObject({
      token_budget: 5000,
      budget_period: 'month',
    });
    expect((await admin(plain)).body).toMatchObject({ budget_usd: null, budget_period: null });
    expect(await textBesideNames(page)).not.toMatch(/\bnull\b|\bundefined\b/);
    await context.close();
    expect(problems).toEqual([]);
  });

  it('writes its CSV export by the server exports’ rule', async () => {
    const { context, page } = await freshPage();
    await page.goto(`${origin}/dashboard`);
    await signIn(page);
    // The page's own CSV writer and the server's, on the same cells.
    const header = ['name', 'requests', 'cost_usd'];
    const rows: CsvCell[][] = [
      ['=1+1', 1, '0.5'],
      ['\t=1+1', -1.5, '-1.5'],
      ['\r@x', 0, null],
      [' =HYPERLINK("http://x")', 2, '=1'],
      ['\u3000-1+1', 3, '1e5'],
      ['a,b "c"', 4, '12'],
      ['-1.5', 5, ' 1'],
      ['＝1', 6, ''],
    ];
    // As source text: the test's own compiler would turn an import() into a require().
    const written = await page.evaluate(
      `import('/dashboard/assets/csv.js').then((csv) =>
        csv.toCsv(${JSON.stringify(header)}, ${JSON.stringify(rows)}, ['cost_usd']))`,
    );
    expect(written).toBe(toCsv(header, rows, ['cost_usd']));

    // The Usage export: a key name with a formula after a blank is defused there too.
    const name = ` =SUM(1)-${process.pid}-${Date.now()}`;
    const { id, secret } = await gateway.createKeyWithId({ name });
    const chat = await request(gateway.url)
      .post('/v1/chat/completions')
      .set('Authorization', `Bearer ${secret}`)
      .send({ model: 'alpha-k3', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.status).toBe(200);
    const usage = gateway.app.get(UsageReport);
    await eventually(
      async () =>
        expect((await usage.report({ groupBy: 'key', keyId: id })).groups[0]?.requests).toBe(1),
      5_000,
      100,
    );
    await page.getByRole('link', { name: 'Usage' }).click();
    await page.locator('#usage-totals tbody tr', { hasText: name.trim() }).waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    const lines = readFileSync((await download.path())!, 'utf8').split('\r\n');
    expect(lines.find((line) => line.includes(name))).toMatch(
      new RegExp(`^[^,]+,key,'${name.replace(/[()]/g, '\\$&')},1,0,`),
    );
    await context.close();
    expect(problems).toEqual([]);
  });

  it('refuses a planted session cookie beside its own, and signing in again clears it', async () => {
    const { context, page } = await freshPage();
    await page.goto(`${origin}/dashboard`);
    await signIn(page);
    const planted = {
      name: 'gateway_dashboard',
      value: 'planted-by-a-neighbour',
      domain: '.gateway.test',
      path: '/dashboard/api',
    };
    await context.addCookies([planted]);
    const sessionCookies = async () =>
      (await context.cookies()).filter((cookie) => cookie.name === 'gateway_dashboard');
    expect(await sessionCookies()).toHaveLength(2);

    // The browser sends the planted one first (longer path): not taken, not locked out.
    await page.reload();
    await page.getByLabel('Admin key').waitFor();
    expect(await page.getByRole('button', { name: 'Sign out' }).isVisible()).toBe(false);
    expect(await sessionCookies()).toEqual([]);
    await signIn(page);
    expect((await sessionCookies()).map((cookie) => cookie.path)).toEqual(['/dashboard']);

    // Planted alone, before a sign-in: the sign-in's answer expires it.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Admin key').waitFor();
    await context.addCookies([planted]);
    await page.reload();
    await signIn(page);
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('heading', { name: 'Virtual keys' }).waitFor();
    expect((await sessionCookies()).map((cookie) => cookie.value)).not.toContain(planted.value);
    expect(await sessionCookies()).toHaveLength(1);
    await context.close();
    expect(problems).toEqual([]);
  });
});
