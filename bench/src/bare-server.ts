// The baseline of benchmark 1: the same single-row read as GET /api/v1/integrations/{id}, with nothing
// but Express and pg: no session, no membership check, no ORM, no logging.
import express from 'express';
import { readIntegration } from './integration-read.js';

const app = express();
app.get('/integrations/:id', readIntegration);
app.get('/health', (_req, res) => {
  res.json({ ok: true });
});
app.listen(Number(process.env.PORT));
