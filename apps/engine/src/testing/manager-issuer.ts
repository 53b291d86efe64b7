// A stand-in for the manager's /.well-known endpoints: an ES256 key published by discovery and JWKS,
// and tokens signed with it, as the manager mints them. Every other path is a 404.
import { createServer } from 'node:http';
import { listenOnLoopback } from '@agentplane/testing';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';

export type ManagerIssuer = {
  issuer: string;
  /** A token of this issuer with `claims` over a 5-minute lifetime and `sub` user-1; `alg` other than ES256 to test refusals. */
  mint: (claims: JWTPayload, alg?: string) => Promise<string>;
  close: () => Promise<void>;
};

export async function startManagerIssuer(): Promise<ManagerIssuer> {
  const kid = 'manager-key';
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' };
  let issuer = '';
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/.well-known/openid-configuration') {
      res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/.well-known/jwks.json` }));
    } else if (req.url === '/.well-known/jwks.json') {
      res.end(JSON.stringify({ keys: [jwk] }));
    } else {
      res.writeHead(404).end();
    }
  });
  issuer = (await listenOnLoopback(server)).origin;
  return {
    issuer,
    mint: (claims, alg = 'ES256') => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ sub: 'user-1', iss: issuer, iat: now, exp: now + 300, ...claims })
        .setProtectedHeader({ alg, kid })
        .sign(privateKey);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
