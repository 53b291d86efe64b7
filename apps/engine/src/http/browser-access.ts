// Lets a browser frontend on an allowed origin stream from this engine: it signs in to the manager,
// mints an agent token, and calls /agent/* with it as a bearer header. No cookies are involved, so
// CORS is granted without credentials, and to the configured origins only.
import cors from 'cors';
import type { RequestHandler } from 'express';

export function corsForAllowedOrigins(allowed: string[]): RequestHandler {
  return cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.includes(origin)),
    methods: ['GET', 'POST'],
    allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'X-Request-Id'],
    exposedHeaders: ['X-Engine-Config-Version', 'X-Request-Id'],
    maxAge: 600,
  });
}
