import type { Request, Response } from 'express';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

/** The single-row read that GET /api/v1/integrations/{id} makes, in plain pg, for the yardstick servers. */
export async function readIntegration(req: Request, res: Response): Promise<void> {
  const { rows } = await pool.query(
    'SELECT id, name, provider, enabled, config, created_at, updated_at FROM integrations WHERE id = $1',
    [req.params.id],
  );
  if (rows.length === 0) {
    res.status(404).end();
    return;
  }
  res.json(rows[0]);
}
