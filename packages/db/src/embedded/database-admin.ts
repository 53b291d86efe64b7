import { createServer } from 'node:net';
import pg from 'pg';

const DUPLICATE_DATABASE = '42P04';

/** A port the OS says is free on loopback right now. */
export function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('could not read the port of a probe socket'));
      });
    });
  });
}

export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Creates `databaseName` on the server of `adminUrl` unless it exists; returns its URL. */
export async function ensureDatabase(adminUrl: string, databaseName: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [databaseName]);
    if (found.rowCount === 0) {
      await client.query(`CREATE DATABASE ${quoteIdentifier(databaseName)}`).catch((error) => {
        // Another process created it between our look and our create.
        if ((error as { code?: string }).code !== DUPLICATE_DATABASE) throw error;
      });
    }
  } finally {
    await client.end();
  }
  return withDatabase(adminUrl, databaseName);
}

export function withDatabase(url: string, databaseName: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${encodeURIComponent(databaseName)}`;
  return parsed.toString();
}
