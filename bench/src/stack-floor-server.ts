// A yardstick for benchmark 1: the bare handler plus only the middleware the manager's stack imposes on
// every request (pino-http request logs, helmet headers, express-session with a signed cookie), with the
// session in memory and one query per request. It shows what the prescribed middleware alone costs,
// beside which the manager's own work (session and membership from Postgres, access checks,
// validation, and the batching that shares its queries) can be judged.
import { createLogger, requestLogger } from '@agentplane/server-kit';
import express from 'express';
import session from 'express-session';
import helmet from 'helmet';
import { readIntegration } from './integration-read.js';

declare module 'express-session' {
  interface SessionData {
    benchUser: string;
  }
}

const app = express();
app.use(requestLogger(createLogger({ name: 'stack-floor' })));
app.use(helmet());
app.use(
  session({
    secret: 'stack floor yardstick, not a real secret',
    resave: false,
    saveUninitialized: false,
    rolling: false,
    cookie: { httpOnly: true, sameSite: 'lax' },
  }),
);
app.post('/session', (req, res) => {
  req.session.benchUser = 'bench';
  res.status(204).end();
});
app.get('/integrations/:id', (req, res, next) => {
  if (!req.session.benchUser) {
    res.status(401).end();
    return;
  }
  readIntegration(req, res).catch(next);
});
app.get('/health', (_req, res) => {
  res.json({ ok: true });
});
app.listen(Number(process.env.PORT));
