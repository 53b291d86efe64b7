// Decides, per applied config, how a request proves it may use the agent: a token from the agent's
// own SSO issuer (else the ENGINE_OIDC_* one) or from the manager (ENGINE_MANAGER_ISSUER, audience =
// the agent id); else nothing (only with ENGINE_AUTH=disabled); else refusal.
import type { TSsoConfig } from '@agentplane/contracts';
import { AppError, type Logger } from '@agentplane/server-kit';
import { decodeJwt, type JWTPayload } from 'jose';
import { logFailure, withErrorId } from '../errors/log-failure.js';
import { keepAgentCallOnlyIfTrusted } from './agent-call-claims.js';
import type { JwksResolvers } from './jwks-resolver.js';
import { createInvalidTokenError, createTokenVerifier, type TokenVerifier } from './token-verifier.js';

export type AuthMode = 'oidc' | 'disabled' | 'unconfigured';

export type Authenticator = {
  mode: AuthMode;
  /** The issuers whose tokens are accepted (the manager's, the agent's SSO or ENGINE_OIDC_*): none unless oidc. */
  issuers: string[];
  /** Resolves with the token's claims (none when auth is disabled); rejects with a 401, 403 or 503 AppError. */
  authenticate: (authorization: string | undefined) => Promise<JWTPayload | undefined>;
};

export type AuthenticatorOptions = {
  sso: TSsoConfig | null;
  fallback: TSsoConfig | undefined;
  /** The manager's token settings for this agent, when the engine trusts the manager's issuer. */
  manager: TSsoConfig | undefined;
  authDisabled: boolean;
  resolvers: JwksResolvers;
  logger: Logger;
};

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The issuer a token claims, read before verification only to pick the verifier that will check it. */
function claimedIssuer(token: string): string | undefined {
  try {
    return decodeJwt(token).iss;
  } catch {
    return undefined;
  }
}

export function createAuthenticator({
  sso,
  fallback,
  manager,
  authDisabled,
  resolvers,
  logger,
}: AuthenticatorOptions): Authenticator {
  const verifiers = new Map<string, TokenVerifier>();
  // The manager's settings first: an SSO config naming the manager's issuer cannot replace them.
  const trusted = [
    { settings: manager, resolver: resolvers.operator },
    sso?.enabled ? { settings: sso, resolver: resolvers.tenant } : { settings: fallback, resolver: resolvers.operator },
  ];
  for (const { settings, resolver } of trusted) {
    if (settings !== undefined && !verifiers.has(settings.issuer)) {
      verifiers.set(settings.issuer, createTokenVerifier(settings, resolver));
    }
  }
  if (verifiers.size > 0) {
    return {
      mode: 'oidc',
      issuers: [...verifiers.keys()],
      authenticate: async (authorization) => {
        const token = BEARER.exec(authorization ?? '')?.[1];
        if (token === undefined) throw createInvalidTokenError('A bearer token is required');
        const issuer = claimedIssuer(token) ?? '';
        const verify = verifiers.get(issuer);
        if (verify === undefined) throw createInvalidTokenError('The token\'s "iss" claim is not accepted');
        try {
          // The manager's verifier is the one for its issuer (it comes first above, no SSO config replaces it).
          return keepAgentCallOnlyIfTrusted(await verify(token), issuer === manager?.issuer);
        } catch (error) {
          if (error instanceof AppError && error.code === 'service_unavailable') {
            // What the issuer answered, or why it could not be reached, is for the log only.
            const errorId = logFailure(
              logger,
              'warn',
              error.cause,
              'a token could not be checked: the OIDC issuer is unreachable',
            );
            throw new AppError('service_unavailable', withErrorId(error.message, errorId));
          }
          throw error;
        }
      },
    };
  }
  if (authDisabled) {
    logger.warn('ENGINE_AUTH=disabled and no OIDC config: anyone who can reach this engine can run the agent');
    return { mode: 'disabled', issuers: [], authenticate: async () => undefined };
  }
  logger.error('no OIDC config for this agent and no ENGINE_OIDC_* settings: runs are refused');
  return {
    mode: 'unconfigured',
    issuers: [],
    authenticate: async () => {
      throw new AppError(
        'service_unavailable',
        'This engine has no OIDC configuration, so it refuses runs. Give the agent an SSO config, set ENGINE_OIDC_ISSUER and ENGINE_OIDC_AUDIENCE, or set ENGINE_AUTH=disabled for local use.',
      );
    },
  };
}
