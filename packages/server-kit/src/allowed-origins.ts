import cors from 'cors';
import type { RequestHandler } from 'express';

export type AllowedOriginsOptions = {
  /** Whether the browser may send cookies: the manager's session needs it, the engine's bearer calls do not. */
  credentials: boolean;
  methods?: string[];
  allowedHeaders: string[];
  exposedHeaders: string[];
};

/** CORS for the listed origins only; any other origin gets no CORS headers at all. */
export function corsForAllowedOrigins(allowed: string[], options: AllowedOriginsOptions): RequestHandler {
  return cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.includes(origin)),
    credentials: options.credentials,
    ...(options.methods ? { methods: options.methods } : {}),
    allowedHeaders: options.allowedHeaders,
    exposedHeaders: options.exposedHeaders,
    maxAge: 600,
  });
}
