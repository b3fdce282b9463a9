import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { BuiltGateway, spawnBuiltGateway } from './support/built-gateway';
import { compileGateway } from './support/compile-gateway';
import { TestOidcProvider } from './support/oidc-provider';

/** A CA of our own and a certificate for 127.0.0.1 it signed, made with openssl. */
function privateCa(dir: string): { ca: string; key: string; cert: string } {
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  openssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '1',
    '-subj',
    '/CN=Test Root CA',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
  );
  openssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=127.0.0.1',
    '-keyout',
    'idp.key',
    '-out',
    'idp.csr',
  );
  openssl(
    'x509',
    '-req',
    '-in',
    'idp.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    'san.cnf',
    '-out',
    'idp.pem',
  );
  return {
    ca: join(dir, 'ca.pem'),
    key: readFileSync(join(dir, 'idp.key'), 'utf8'),
    cert: readFileSync(join(dir, 'idp.pem'), 'utf8'),
  };
}

/**
 * An identity provider on HTTPS with a certificate from a private CA: the built gateway trusts it
 * through Node's NODE_EXTRA_CA_CERTS, and refuses it without (docs/sso.md).
 */
describe('SSO with a provider behind a private CA (built gateway)', () => {
  let dir: string;
  let provider: TestOidcProvider;
  let ca: string;
  const gateways: BuiltGateway[] = [];

  async function startGateway(extra: Record<string, string>): Promise<string> {
    const gateway = spawnBuiltGateway({
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: process.env.DATABASE_URL,
      GATEWAY_DATA_DIR: join(dir, 'data'),
      OIDC_ISSUER_URL: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      OIDC_ROLES: JSON.stringify({ admins: 'admin' }),
      ...extra,
    });
    gateways.push(gateway);
    return gateway.listening();
  }

  beforeAll(async () => {
    compileGateway();
    dir = mkdtempSync(join(tmpdir(), 'gateway-private-ca-'));
    writeFileSync(join(dir, 'san.cnf'), 'subjectAltName=IP:127.0.0.1\n');
    const tls = privateCa(dir);
    ca = tls.ca;
    provider = await TestOidcProvider.start(
      { alice: { email: 'alice@example.com', name: 'Alice', groups: ['admins'] } },
      { tls },
    );
  }, 120_000);
  afterAll(async () => {
    for (const gateway of gateways) await gateway.stop();
    await provider?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** An ID token as the provider issues them, signed with its key. */
  const idToken = () => {
    const now = Math.floor(Date.now() / 1000);
    return provider.sign({
      iss: provider.issuer,
      sub: 'alice',
      aud: provider.clientId,
      iat: now,
      exp: now + 600,
      groups: ['admins'],
    });
  };

  it('trusts the provider with NODE_EXTRA_CA_CERTS: discovery, sign-in redirect, JWKS', async () => {
    const url = await startGateway({ NODE_EXTRA_CA_CERTS: ca });
    const login = await request(url).get('/dashboard/auth/login').redirects(0);
    expect(login.status).toBe(303);
    expect(login.headers.location).toMatch(new RegExp(`^${provider.issuer}/auth\\?`));
    const keys = await request(url)
      .get('/admin/keys')
      .set('Authorization', `Bearer ${await idToken()}`);
    expect(keys.status).toBe(200);
  }, 60_000);

  it('refuses it without: sign-in unavailable, bearer tokens 503 naming the certificate', async () => {
    const url = await startGateway({});
    const login = await request(url).get('/dashboard/auth/login').redirects(0);
    expect(login.headers.location).toBe('/dashboard?sign_in_error=unavailable');
    const keys = await request(url)
      .get('/admin/keys')
      .set('Authorization', `Bearer ${await idToken()}`);
    expect(keys.status).toBe(503);
    expect(keys.body.error.message).toMatch(/certificate/);
  }, 60_000);
});
