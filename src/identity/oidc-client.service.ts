import { Inject, Injectable, Logger } from '@nestjs/common';
import type * as Jose from 'jose';
import type * as OpenidClient from 'openid-client';
import { GatewayException } from '../common/errors/gateway.exception';
import { IdentitySettings, type OidcSettings } from './identity-settings';

/**
 * openid-client and jose are required at first use, not when this file loads: a gateway without
 * OIDC_ISSUER_URL never pays for their modules (about 0.2 s of every start here), as the config
 * loader does with the YAML parser. Both are ES modules, loaded through Node's require(esm).
 */
/* eslint-disable @typescript-eslint/no-require-imports */
const openidClient = () => require('openid-client') as typeof OpenidClient;
const joseLib = () => require('jose') as typeof Jose;
/* eslint-enable @typescript-eslint/no-require-imports */

/** After a failed discovery, the next attempt waits this long: a down provider is not hammered. */
const RETRY_MS = 5_000;
const TIMEOUT_SECONDS = 10;
/** Signatures only from the provider's public keys: no `none`, no shared-secret HMAC. */
const ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];
/** JWT access tokens (RFC 9068) and ID tokens; a logout token or anything else is not a bearer. */
const BEARER_TYPES = new Set(['jwt', 'at+jwt', 'application/at+jwt']);

/** What an authorization request needs back at the callback; kept server-side. */
export interface SignInTransaction {
  state: string;
  nonce: string;
  codeVerifier: string;
  redirectUri: string;
}

export interface SignInResult {
  claims: Record<string, unknown>;
  idToken: string;
}

/**
 * The OpenID Connect relying party (openid-client): discovery, the authorization code flow with
 * PKCE, state and nonce, RP-initiated logout, and bearer JWTs verified against the provider's JWKS
 * (jose). Discovery is lazy, so the gateway starts, and the admin key works, while the provider
 * is down. HTTPS to a provider with a private CA needs NODE_EXTRA_CA_CERTS (docs/sso.md).
 */
@Injectable()
export class OidcClient {
  private readonly logger = new Logger('Oidc');
  private discovered?: Promise<OpenidClient.Configuration>;
  private failure?: { at: number; message: string };
  private jwks?: ReturnType<typeof Jose.createRemoteJWKSet>;

  constructor(@Inject(IdentitySettings) private readonly settings: IdentitySettings) {}

  private get oidc(): OidcSettings {
    if (!this.settings.oidc) throw new GatewayException('not_found');
    return this.settings.oidc;
  }

  /** The provider's configuration, discovered once; 503 while it cannot be reached. */
  configuration(): Promise<OpenidClient.Configuration> {
    if (!this.discovered) {
      if (this.failure && Date.now() - this.failure.at < RETRY_MS)
        return Promise.reject(unavailable(this.failure.message));
      this.discovered = this.discover().catch((error: Error) => {
        this.discovered = undefined;
        this.failure = { at: Date.now(), message: describe(error) };
        this.logger.error(`discovery at ${this.oidc.issuerUrl} failed: ${this.failure.message}`);
        throw unavailable(this.failure.message);
      });
    }
    return this.discovered;
  }

  private async discover(): Promise<OpenidClient.Configuration> {
    const { issuerUrl, clientId, clientSecret } = this.oidc;
    const client = openidClient();
    const insecure = issuerUrl.startsWith('http:');
    const found = await client.discovery(new URL(issuerUrl), clientId, undefined, client.None(), {
      execute: insecure ? [client.allowInsecureRequests] : [],
      timeout: TIMEOUT_SECONDS,
    });
    const metadata = found.serverMetadata();
    // client_secret_basic is the OAuth default; _post where the provider offers only that.
    const methods = metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
    const auth = !clientSecret
      ? client.None()
      : methods.includes('client_secret_basic')
        ? client.ClientSecretBasic(clientSecret)
        : client.ClientSecretPost(clientSecret);
    const algs = metadata.id_token_signing_alg_values_supported ?? ['RS256'];
    const config = new client.Configuration(
      metadata,
      clientId,
      { id_token_signed_response_alg: algs.includes('RS256') ? 'RS256' : algs[0] },
      auth,
    );
    if (insecure) client.allowInsecureRequests(config);
    // The ID token's signature is checked against the JWKS even though it comes straight from the
    // token endpoint: the token is kept as the evidence of who signed in.
    client.enableNonRepudiationChecks(config);
    config.timeout = TIMEOUT_SECONDS;
    this.failure = undefined;
    return config;
  }

  /** A new authorization request: where to send the browser, and what to check when it returns. */
  async startSignIn(redirectUri: string): Promise<{ url: URL; transaction: SignInTransaction }> {
    const config = await this.configuration();
    const client = openidClient();
    const transaction = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      codeVerifier: client.randomPKCECodeVerifier(),
      redirectUri,
    };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: this.oidc.scopes,
      response_type: 'code',
      code_challenge: await client.calculatePKCECodeChallenge(transaction.codeVerifier),
      code_challenge_method: 'S256',
      state: transaction.state,
      nonce: transaction.nonce,
    });
    return { url, transaction };
  }

  /**
   * Checks the authorization response (state, issuer), redeems the code with the PKCE verifier,
   * and verifies the ID token: signature through the JWKS, issuer, audience, expiry, nonce.
   */
  async finishSignIn(callbackUrl: URL, transaction: SignInTransaction): Promise<SignInResult> {
    const config = await this.configuration();
    const tokens = await openidClient().authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: transaction.codeVerifier,
      expectedState: transaction.state,
      expectedNonce: transaction.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims || !tokens.id_token) throw new Error('the token response has no ID token');
    return { claims: claims as Record<string, unknown>, idToken: tokens.id_token };
  }

  /** The provider's logout page for RP-initiated logout; null when it offers none. */
  async endSessionUrl(idToken: string, postLogoutRedirectUri: string): Promise<string | null> {
    const config = await this.configuration().catch(() => null);
    if (!config?.serverMetadata().end_session_endpoint) return null;
    return openidClient()
      .buildEndSessionUrl(config, {
        id_token_hint: idToken,
        post_logout_redirect_uri: postLogoutRedirectUri,
      })
      .toString();
  }

  /**
   * A bearer token on the admin API: a JWT access token or an ID token of the provider, signed
   * with a key of its JWKS, of its issuer, for OIDC_API_AUDIENCE (else the client id), unexpired.
   */
  async verifyBearer(token: string): Promise<Jose.JWTPayload> {
    const metadata = (await this.configuration()).serverMetadata();
    if (!metadata.jwks_uri) throw unavailable('the provider publishes no jwks_uri');
    const { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } = joseLib();
    this.jwks ??= createRemoteJWKSet(new URL(metadata.jwks_uri), {
      timeoutDuration: TIMEOUT_SECONDS * 1000,
      cooldownDuration: 30_000,
      cacheMaxAge: 600_000,
    });
    let type: string | undefined;
    try {
      type = decodeProtectedHeader(token).typ;
    } catch {
      throw invalidToken('it is not a JWT');
    }
    if (type !== undefined && !BEARER_TYPES.has(type.toLowerCase()))
      throw invalidToken(`a "${type}" token is not an access or ID token`);
    try {
      const { payload } = await jwtVerify(token, this.jwks, {
        issuer: metadata.issuer,
        audience: this.oidc.apiAudience,
        algorithms: ALGORITHMS,
        requiredClaims: ['sub', 'exp'],
        clockTolerance: 30,
      });
      return payload;
    } catch (error) {
      throw bearerError(error, this.oidc.apiAudience);
    }
  }
}

function bearerError(error: unknown, audience: string): GatewayException {
  const { errors } = joseLib();
  if (error instanceof errors.JWTExpired) return invalidToken('it has expired');
  if (error instanceof errors.JWTClaimValidationFailed)
    return invalidToken(
      error.claim === 'aud'
        ? `its audience is not "${audience}" (OIDC_API_AUDIENCE, else OIDC_CLIENT_ID)`
        : `its "${error.claim}" claim is not valid (${error.reason})`,
    );
  if (error instanceof errors.JWKSTimeout) return unavailable('its JWKS did not answer in time');
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JOSEAlgNotAllowed
  )
    return invalidToken('its signature does not verify with the provider’s keys');
  if (error instanceof errors.JOSEError) return invalidToken(error.message);
  return unavailable((error as Error).message);
}

function invalidToken(reason: string): GatewayException {
  return new GatewayException('invalid_admin_token', {
    message: `The bearer token was refused: ${reason}.`,
  });
}

function unavailable(message: string): GatewayException {
  return new GatewayException('service_unavailable', {
    message: `The identity provider cannot be reached: ${message}`,
    headers: { 'Retry-After': String(RETRY_MS / 1000) },
  });
}

/**
 * An error with its causes: openid-client wraps what went wrong (a signature that does not
 * verify, ECONNREFUSED, a certificate the trust store does not know) in generic messages.
 */
export function describe(error: unknown): string {
  const parts: string[] = [];
  for (
    let node = error as Error | undefined;
    node && parts.length < 5;
    node = node.cause as Error
  ) {
    const text = node.message || String((node as { code?: unknown }).code ?? node);
    if (text !== parts.at(-1)) parts.push(text);
  }
  return parts.join(': ');
}
