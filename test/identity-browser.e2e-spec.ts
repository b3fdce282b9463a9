import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN_KEY } from './support/admin';
import { launchChromium, recordPageProblems } from './support/browser';
import { buildDashboard } from './support/dashboard';
import { TestOidcProvider } from './support/oidc-provider';
import { oidcEnv } from './support/sso';
import { startTestApp, TestApp } from './support/test-app';

const ARTIFACTS = join(__dirname, '..', 'artifacts', 'identity');

/**
 * SSO in Debian's chromium: the dashboard's "Sign in with SSO", the provider's own login and
 * consent pages, back to the dashboard signed in (the provider on `localhost`, the gateway on
 * 127.0.0.1: two sites, as in production), a change seen on the Audit page, RP-initiated sign-out,
 * and the "no access" page for a person whose groups map to no role.
 */
describe('dashboard SSO in a real browser', () => {
  let provider: TestOidcProvider;
  let gateway: TestApp;
  let browser: Browser;
  const problems: string[] = [];

  beforeAll(async () => {
    buildDashboard();
    mkdirSync(ARTIFACTS, { recursive: true });
    provider = await TestOidcProvider.start(
      {
        alice: { email: 'alice@example.com', name: 'Alice Admin', groups: ['gateway-admins'] },
        victor: { email: 'victor@example.com', name: 'Victor Viewer', groups: ['auditors'] },
        nora: { email: 'nora@example.com', name: 'Nora Nobody', groups: ['cafeteria'] },
      },
      { host: 'localhost' },
    );
    gateway = await startTestApp({
      env: {
        ADMIN_API_KEY: ADMIN_KEY,
        ...oidcEnv(provider, { 'gateway-admins': 'admin', auditors: 'viewer' }),
        // The first test makes a dozen calls in a few seconds, denser than a person would.
        DASHBOARD_RATE_LIMIT: '30',
      },
    });
    provider.allowGateway(gateway.url);
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gateway?.close();
    await provider?.close();
  });

  /** A fresh browser profile; errors of the gateway's own pages are defects of the page. */
  async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    recordPageProblems(page, problems, (response) => {
      const url = new URL(response.url());
      const signedOut = response.status() === 401 && url.pathname === '/dashboard/api/session';
      return url.origin !== gateway.url || signedOut;
    });
    return { context, page };
  }

  /** Kept in artifacts/identity/; docs/dashboard/ shows copies of sso-*.png and audit.png. */
  const shot = (page: Page, name: string) =>
    page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });

  /** Through the provider's own login form and consent page. */
  async function signInAtProvider(page: Page, sub: string): Promise<void> {
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    await page.waitForURL((url) => url.origin === provider.issuer);
    await page.locator('input[name="login"]').fill(sub);
    await page.locator('input[name="password"]').fill('correct horse battery staple');
    await page.getByRole('button', { name: 'Sign-in' }).click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.waitForURL(`${gateway.url}/dashboard`);
  }

  it('signs in through the provider, changes a key, shows it on the Audit page, and signs out there too', async () => {
    const { context, page } = await newPage();
    await page.goto(`${gateway.url}/dashboard`);
    await page.getByRole('link', { name: 'Sign in with SSO' }).waitFor();
    await page.getByLabel('Admin key').waitFor(); // the break-glass form stays beside it
    await shot(page, 'sso-sign-in');

    await signInAtProvider(page, 'alice');
    await page.locator('#base-url').waitFor();
    expect(await page.locator('#who').textContent()).toBe('Alice Admin (admin)');
    const cookies = await context.cookies(`${gateway.url}/dashboard/auth/callback`);
    expect(cookies.find((c) => c.name === 'gateway_dashboard')).toMatchObject({
      httpOnly: true,
      sameSite: 'Strict',
    });
    expect(cookies.find((c) => c.name === 'gateway_dashboard_signin')).toBeUndefined();
    await shot(page, 'sso-overview');

    await page.getByRole('link', { name: 'Keys' }).click();
    const name = `sso-browser-${Date.now()}`;
    await page.getByLabel('Name', { exact: true }).fill(name);
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#new-secret').waitFor();
    page.once('dialog', (dialog) => dialog.accept());
    await page.getByRole('button', { name: `Revoke ${name}` }).click();
    await page.getByRole('row', { name: new RegExp(`${name}.*revoked`) }).waitFor();

    await page.getByRole('link', { name: 'Audit' }).click();
    const rows = page.locator('#audit-log tbody tr');
    await rows.filter({ hasText: name }).first().waitFor();
    const revoke = rows.filter({ hasText: 'key.revoke' }).filter({ hasText: name });
    expect(await revoke.locator('td').nth(1).textContent()).toBe('alice@example.com');
    expect(await revoke.locator('td.change').textContent()).toContain('status: active → revoked');
    await rows.filter({ hasText: 'auth.sign_in' }).first().waitFor();
    await page.getByLabel('Target').fill(name);
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForFunction(() => document.querySelectorAll('#audit-log tbody tr').length === 2);
    await shot(page, 'audit');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    const csv = readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\r\n');
    expect(csv).toHaveLength(3);
    expect(csv[1]).toContain(',key.revoke,key,');

    // Sign out: the session ends, and the provider's too (RP-initiated logout), then back here.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.origin === provider.issuer);
    await page.getByRole('button', { name: 'Yes, sign me out' }).click();
    await page.waitForURL(`${gateway.url}/dashboard`);
    await page.getByRole('link', { name: 'Sign in with SSO' }).waitFor();
    // The provider asks for the password again: its session ended as well.
    await page.getByRole('link', { name: 'Sign in with SSO' }).click();
    await page.locator('input[name="login"]').waitFor();
    await context.close();
    expect(problems).toEqual([]);
  }, 60_000);

  it('shows a viewer no create form and no actions, and a person without a role the "no access" page', async () => {
    const viewer = await newPage();
    await viewer.page.goto(`${gateway.url}/dashboard`);
    await signInAtProvider(viewer.page, 'victor');
    await viewer.page.getByRole('link', { name: 'Keys' }).click();
    await viewer.page.getByRole('heading', { name: 'Virtual keys' }).waitFor();
    expect(await viewer.page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    expect(await viewer.page.getByRole('button', { name: /^Revoke / }).count()).toBe(0);
    expect(await viewer.page.getByRole('link', { name: 'Audit' }).isVisible()).toBe(true);
    await viewer.context.close();

    const nobody = await newPage();
    await nobody.page.goto(`${gateway.url}/dashboard`);
    await signInAtProvider(nobody.page, 'nora');
    await nobody.page.getByRole('heading', { name: 'No access' }).waitFor();
    expect(await nobody.page.textContent('main')).toContain('nora@example.com');
    for (const link of ['Overview', 'Keys', 'Usage', 'Audit'])
      expect(await nobody.page.getByRole('link', { name: link }).isVisible()).toBe(false);
    await shot(nobody.page, 'no-access');
    await nobody.context.close();
    expect(problems).toEqual([]);
  }, 60_000);
});
