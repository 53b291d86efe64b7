// Serves the built web console (apps/console) at `/`, on the API's origin so the session cookie just
// works. Hashed assets are cached for good; index.html never is, so a deploy takes effect on reload.
import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type Router } from 'express';
import helmet from 'helmet';

// Beside apps/manager in the repository and in the manager image alike, from src/ (tests) and dist/.
export const DEFAULT_CONSOLE_DIR = new URL('../../../console/dist', import.meta.url).pathname;

const ASSETS_PREFIX = '/assets/';
// Paths the manager answers itself: unknown ones there stay problem+json 404s, never the console's page.
const NOT_CONSOLE = /^\/(api|\.well-known)(\/|$)/;

export function consoleIsBuilt(dir: string): boolean {
  return existsSync(path.join(dir, 'index.html'));
}

/**
 * The console's router. Its CSP lets scripts come from here only, and lets the playground connect to the
 * engines the operator lists (CONSOLE_ENGINE_SOURCES): an agent's engine_url is the tenant's to set, so
 * the browser, not the tenant, decides where a page may send its tokens.
 */
export function consoleRouter(options: { dir: string; engineSources: string[] }): Router {
  const router = express.Router();
  router.use(
    helmet({
      contentSecurityPolicy: {
        directives: {
          'script-src': ["'self'"],
          'connect-src': ["'self'", ...options.engineSources],
          'img-src': ["'self'", 'data:'],
        },
      },
    }),
  );
  router.use(
    express.static(options.dir, {
      index: false,
      setHeaders: (res, file) => {
        const hashed = file.startsWith(path.join(options.dir, ASSETS_PREFIX));
        res.setHeader('Cache-Control', hashed ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    }),
  );
  // Any other page is a route of the single-page app: its index.html decides what to show.
  router.get(/.*/, (req, res, next) => {
    // Only a browser navigating asks for HTML by name; API clients and probes keep their 404s.
    const wantsPage = req.get('accept')?.includes('text/html') ?? false;
    if (NOT_CONSOLE.test(req.path) || req.path.startsWith(ASSETS_PREFIX) || !wantsPage) {
      next();
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(path.join(options.dir, 'index.html'));
  });
  return router;
}
