import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import Provider, { errors } from 'oidc-provider';
import { createMemoryAdapter } from 'oidc-provider/lib/adapters/memory_adapter.js';

/** A person at the test identity provider; `groups` may change between two sign-ins. */
export interface TestUser {
  email: string;
  name: string;
  groups: string[];
}

export interface TokenSet {
  idToken: string;
  accessToken: string;
}

/** The audience of the provider's JWT access tokens for the gateway's admin API. */
export const API_AUDIENCE = 'https://gateway.test/admin';
const LOOPBACK_CALLBACK = 'http://127.0.0.1/automation-callback';

/**
 * A real OpenID provider (panva's oidc-provider) on loopback: discovery, JWKS, its own login and
 * consent pages (devInteractions: any password), the authorization code flow with PKCE, JWT
 * access tokens for API_AUDIENCE carrying the groups, client credentials for service accounts,
 * and RP-initiated logout. Clients are read on each use, so a gateway started after the
 * provider can be allowed as a redirect target.
 */
export class TestOidcProvider {
  readonly clientId = 'gateway';
  readonly clientSecret = randomBytes(16).toString('hex');
  readonly users = new Map<string, TestUser>();
  /** Groups of service accounts (client credentials), by client id. */
  readonly serviceAccounts = new Map<string, { secret: string; groups: string[] }>();
  /** Rewrites the token endpoint's JSON answer (tampering and replay tests); null: untouched. */
  tokenResponseHook: ((body: Record<string, unknown>) => Promise<void> | void) | null = null;
  private readonly redirectUris = new Set<string>([LOOPBACK_CALLBACK]);
  private readonly logoutUris = new Set<string>();
  private server!: Server;
  private privateJwk!: JWK;
  issuer = '';

  /**
   * `host`: the issuer's host name. The browser test takes `localhost`, so the provider is on
   * another site than the gateway on 127.0.0.1, as in production (cookies ignore ports).
   * `tls`: serve HTTPS with this key and certificate.
   */
  static async start(
    users: Record<string, TestUser>,
    options: { host?: string; tls?: { key: string; cert: string } } = {},
  ): Promise<TestOidcProvider> {
    const provider = new TestOidcProvider();
    for (const [sub, user] of Object.entries(users)) provider.users.set(sub, user);
    await provider.listen(options.host ?? '127.0.0.1', options.tls);
    return provider;
  }

  private async listen(host: string, tls?: { key: string; cert: string }): Promise<void> {
    this.server = tls ? createTlsServer(tls) : createServer();
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const port = (this.server.address() as AddressInfo).port;
    this.issuer = `${tls ? 'https' : 'http'}://${host}:${port}`;
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    this.privateJwk = {
      ...(await exportJWK(privateKey)),
      kid: 'test-key-1',
      alg: 'RS256',
      use: 'sig',
    };
    const memory = createMemoryAdapter();
    const provider = new Provider(this.issuer, {
      adapter: (model: string) =>
        model === 'Client' ? { find: async (id: string) => this.client(id) } : memory(model),
      jwks: { keys: [this.privateJwk] },
      cookies: { keys: [randomBytes(16).toString('hex')] },
      findAccount: async (_ctx: unknown, sub: string) => {
        const user = this.users.get(sub);
        if (!user) return undefined;
        return {
          accountId: sub,
          claims: async () => ({ sub, email: user.email, email_verified: true, ...user }),
        };
      },
      claims: {
        openid: ['sub'],
        email: ['email', 'email_verified'],
        profile: ['name'],
        groups: ['groups'],
      },
      scopes: ['openid', 'email', 'profile', 'groups'],
      // The scopes' claims go into the ID token, as Keycloak, Entra ID and Okta can be set to do.
      conformIdTokenClaims: false,
      pkce: { required: () => true },
      ttl: {
        AccessToken: 600,
        AuthorizationCode: 60,
        ClientCredentials: 600,
        Grant: 3600,
        IdToken: 600,
        Interaction: 600,
        Session: 3600,
      },
      features: {
        devInteractions: { enabled: true },
        rpInitiatedLogout: { enabled: true },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: async () => undefined,
          useGrantedResource: async () => true,
          getResourceServerInfo: async (_ctx: unknown, resource: string) => {
            if (resource !== API_AUDIENCE) throw new errors.InvalidTarget();
            return {
              scope: 'admin',
              audience: API_AUDIENCE,
              accessTokenFormat: 'jwt',
              jwt: { sign: { alg: 'RS256' } },
            };
          },
        },
      },
      extraTokenClaims: async (
        _ctx: unknown,
        token: { accountId?: string; clientId?: string },
      ) => ({
        groups: token.accountId
          ? (this.users.get(token.accountId)?.groups ?? [])
          : (this.serviceAccounts.get(token.clientId ?? '')?.groups ?? []),
      }),
    } as never);
    provider.use(async (ctx, next) => {
      await next();
      if (ctx.path === '/token' && ctx.status === 200 && this.tokenResponseHook)
        await this.tokenResponseHook(ctx.body as Record<string, unknown>);
    });
    this.server.on('request', provider.callback());
  }

  private client(id: string): Record<string, unknown> | undefined {
    if (id === this.clientId)
      return {
        client_id: this.clientId,
        client_secret: this.clientSecret,
        redirect_uris: [...this.redirectUris],
        post_logout_redirect_uris: [...this.logoutUris],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      };
    const service = this.serviceAccounts.get(id);
    if (service)
      return {
        client_id: id,
        client_secret: service.secret,
        redirect_uris: [],
        grant_types: ['client_credentials'],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_basic',
      };
    return undefined;
  }

  /** Registers a gateway's callback and its post-logout page (the dashboard). */
  allowGateway(gatewayUrl: string): void {
    this.redirectUris.add(`${gatewayUrl}/dashboard/auth/callback`);
    this.logoutUris.add(`${gatewayUrl}/dashboard`);
  }

  /** Signs any claims with the provider's own key: tokens a real provider would never issue. */
  sign(claims: JWTPayload, typ = 'JWT'): Promise<string> {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: this.privateJwk.kid, typ })
      .sign(this.privateJwk as never);
  }

  /**
   * The code flow for a user without a browser: the provider's login and consent forms over
   * HTTP, for the gateway's client. With `resource`, the access token is a JWT for it.
   */
  async tokensFor(sub: string, resource?: string): Promise<TokenSet> {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const url = new URL(`${this.issuer}/auth`);
    url.search = new URLSearchParams({
      client_id: this.clientId,
      response_type: 'code',
      redirect_uri: LOOPBACK_CALLBACK,
      scope: 'openid email profile groups',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      nonce: randomBytes(8).toString('hex'),
      ...(resource ? { resource } : {}),
    }).toString();
    const back = await this.throughLogin(url.toString(), sub);
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: LOOPBACK_CALLBACK,
      code_verifier: verifier,
      ...(resource ? { resource } : {}),
    });
    const tokens = await this.tokenRequest(this.clientId, this.clientSecret, body);
    return { idToken: tokens.id_token as string, accessToken: tokens.access_token as string };
  }

  /** A service account's JWT access token for API_AUDIENCE (client credentials). */
  async serviceToken(clientId: string): Promise<string> {
    const { secret } = this.serviceAccounts.get(clientId)!;
    const body = new URLSearchParams({
      grant_type: 'client_credentials',
      resource: API_AUDIENCE,
      scope: 'admin',
    });
    return (await this.tokenRequest(clientId, secret, body)).access_token as string;
  }

  /**
   * Follows an authorization request through the provider's login and consent pages (a fresh
   * browser, so always the login page); returns the redirect back to the client.
   */
  async throughLogin(authorizationUrl: string, sub: string): Promise<URL> {
    const cookies = new Map<string, string>();
    const keep = (response: Response) => {
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const [name, ...value] = pair.split('=');
        cookies.set(name.trim(), value.join('='));
      }
    };
    const header = () => [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    let url = new URL(authorizationUrl);
    for (let step = 0; step < 12; step++) {
      if (url.origin !== this.issuer) return url;
      let response = await fetch(url, { redirect: 'manual', headers: { cookie: header() } });
      keep(response);
      if (response.status === 200) {
        const html = await response.text();
        const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
        const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
        if (!action || !prompt) throw new Error(`unexpected provider page at ${url}: ${html}`);
        const form = new URLSearchParams(
          prompt === 'login' ? { prompt, login: sub, password: 'any' } : { prompt },
        );
        response = await fetch(new URL(action, url), {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie: header(), 'content-type': 'application/x-www-form-urlencoded' },
          body: form,
        });
        keep(response);
      }
      const location = response.headers.get('location');
      if (!location) throw new Error(`provider answered ${response.status} at ${url}`);
      url = new URL(location, url);
    }
    throw new Error('too many redirects at the provider');
  }

  private async tokenRequest(
    clientId: string,
    secret: string,
    body: URLSearchParams,
  ): Promise<Record<string, unknown>> {
    const response = await fetch(`${this.issuer}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body,
    });
    const tokens = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`token request failed: ${JSON.stringify(tokens)}`);
    return tokens;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
