// The baseline of benchmark 1: the same single-row read as GET /api/v1/integrations/{id}, with nothing
// but Express and pg: no session, no membership check, no ORM, no logging.
import express from 'express';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = express();
app.get('/integrations/:id', async (req, res) => {
  const { rows } = await pool.query(
    'SELECT id, name, provider, enabled, config, created_at, updated_at FROM integrations WHERE id = $1',
    [req.params.id],
  );
  if (rows.length === 0) {
    res.status(404).end();
    return;
  }
  res.json(rows[0]);
});
app.get('/health', (_req, res) => {
  res.json({ ok: true });
});
const server = app.listen(Number(process.env.PORT));
process.on('SIGTERM', () => {
  server.close();
  void pool.end();
});
