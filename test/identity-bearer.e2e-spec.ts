import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { Client } from 'pg';
import request from 'supertest';
import { ADMIN_KEY } from './support/admin';
import { API_AUDIENCE, TestOidcProvider } from './support/oidc-provider';
import { startTestApp, TestApp } from './support/test-app';

// Sign-ins through the provider and gateway starts take seconds on a busy machine.
jest.setTimeout(30_000);

const USERS = {
  alice: { email: 'alice@example.com', name: 'Alice', groups: ['gateway-admins'] },
  victor: { email: 'victor@example.com', name: 'Victor', groups: ['auditors'] },
};
const ROLES = { 'gateway-admins': 'admin', auditors: 'viewer', robots: 'admin' };

function gatewayEnv(provider: TestOidcProvider, extra: Record<string, string> = {}) {
  return {
    ADMIN_API_KEY: ADMIN_KEY,
    OIDC_ISSUER_URL: provider.issuer,
    OIDC_CLIENT_ID: provider.clientId,
    OIDC_CLIENT_SECRET: provider.clientSecret,
    OIDC_ROLES: JSON.stringify(ROLES),
    ...extra,
  };
}

/**
 * Bearer tokens of the identity provider on /admin: verified through its JWKS (signature, issuer,
 * audience, expiry); JWT access tokens and ID tokens, never opaque ones.
 */
describe('admin API: bearer tokens from the identity provider', () => {
  let provider: TestOidcProvider;
  let other: TestOidcProvider;
  let byClientId: TestApp;
  let byApiAudience: TestApp;
  const keys = (gateway: TestApp, token: string) =>
    request(gateway.url).get('/admin/keys').set('Authorization', `Bearer ${token}`);
  const refusedToken = (response: request.Response, reason: RegExp) => {
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('invalid_admin_token');
    expect(response.body.error.message).toMatch(reason);
  };

  beforeAll(async () => {
    provider = await TestOidcProvider.start(USERS);
    other = await TestOidcProvider.start(USERS);
    byClientId = await startTestApp({ env: gatewayEnv(provider) });
    byApiAudience = await startTestApp({
      env: gatewayEnv(provider, { OIDC_API_AUDIENCE: API_AUDIENCE }),
    });
  });
  afterAll(async () => {
    await byClientId?.close();
    await byApiAudience?.close();
    await provider?.close();
    await other?.close();
  });

  it('takes an ID token (audience: the client id) and its groups; the user is recorded', async () => {
    const { idToken } = await provider.tokensFor('alice');
    expect((await keys(byClientId, idToken)).status).toBe(200);
    const { idToken: viewer } = await provider.tokensFor('victor');
    expect((await keys(byClientId, viewer)).status).toBe(200);
    const write = await request(byClientId.url)
      .post('/admin/keys')
      .set('Authorization', `Bearer ${viewer}`)
      .send({ name: `viewer-${Date.now()}` });
    expect(write.status).toBe(403);
  });

  it('takes a JWT access token for OIDC_API_AUDIENCE, and then refuses ID tokens', async () => {
    const { idToken, accessToken } = await provider.tokensFor('alice', API_AUDIENCE);
    expect(decodeJwt(accessToken)).toMatchObject({ aud: API_AUDIENCE, groups: ['gateway-admins'] });
    expect((await keys(byApiAudience, accessToken)).status).toBe(200);
    refusedToken(await keys(byApiAudience, idToken), /audience/);
    refusedToken(await keys(byClientId, accessToken), /audience is not "gateway"/);
  });

  it('refuses opaque access tokens, as documented', async () => {
    const { accessToken } = await provider.tokensFor('alice');
    expect(accessToken.split('.')).toHaveLength(1);
    const response = await keys(byClientId, accessToken);
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('invalid_admin_key');
    expect(response.body.error.message).toMatch(/Opaque access tokens are not accepted/);
  });

  it('refuses tampered, expired, foreign-signed, other-issuer and non-bearer tokens', async () => {
    const { idToken } = await provider.tokensFor('victor');
    const [header, , signature] = idToken.split('.');
    const claims = decodeJwt(idToken);
    const promoted = Buffer.from(JSON.stringify({ ...claims, groups: ['gateway-admins'] }));
    refusedToken(
      await keys(byClientId, `${header}.${promoted.toString('base64url')}.${signature}`),
      /signature/,
    );

    const now = Math.floor(Date.now() / 1000);
    const expired = await provider.sign({ ...claims, iat: now - 7200, exp: now - 3600 });
    refusedToken(await keys(byClientId, expired), /expired/);

    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const foreign = await new SignJWT({ ...claims })
      .setProtectedHeader({ alg: 'RS256', kid: 'test-key-1' })
      .sign((await exportJWK(privateKey)) as never);
    refusedToken(await keys(byClientId, foreign), /signature/);

    // Another provider's token: its keys are not in this provider's JWKS.
    const { idToken: otherProvider } = await other.tokensFor('alice');
    refusedToken(await keys(byClientId, otherProvider), /signature/);
    const otherIssuer = await provider.sign({ ...claims, iss: other.issuer, exp: now + 600 });
    refusedToken(await keys(byClientId, otherIssuer), /"iss" claim/);

    const logoutToken = await provider.sign({ ...claims, exp: now + 600 }, 'logout+jwt');
    refusedToken(await keys(byClientId, logoutToken), /not an access or ID token/);

    // The admin key still works beside them.
    expect((await keys(byClientId, ADMIN_KEY)).status).toBe(200);
  });

  it('gives a service account (client credentials) the roles of its groups, as people get', async () => {
    provider.serviceAccounts.set('deploy-bot', {
      secret: 'bot-secret-0123456789',
      groups: ['robots'],
    });
    provider.serviceAccounts.set('idle-bot', { secret: 'bot-secret-9876543210', groups: [] });
    const token = await provider.serviceToken('deploy-bot');
    const name = `bot-key-${Date.now()}`;
    const created = await request(byApiAudience.url)
      .post('/admin/keys')
      .set('Authorization', `Bearer ${token}`)
      .send({ name });
    expect(created.status).toBe(201);
    const idle = await keys(byApiAudience, await provider.serviceToken('idle-bot'));
    expect(idle.status).toBe(403);

    const db = new Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    try {
      const {
        rows: [user],
      } = await db.query('SELECT * FROM admin_users WHERE subject = $1 AND issuer = $2', [
        'deploy-bot',
        provider.issuer,
      ]);
      expect(user).toMatchObject({ name: 'deploy-bot', roles: ['admin'], last_sign_in_at: null });
      const {
        rows: [row],
      } = await db.query(
        `SELECT * FROM audit_log WHERE action = 'key.create' AND target_name = $1`,
        [name],
      );
      expect(row).toMatchObject({ actor_type: 'user', actor_id: user.id });
    } finally {
      await db.end();
    }
  });
});
