// Run as root, the embedded PostgreSQL runs as the `postgres` OS user, which must reach its binaries:
// they are inside the clone, and a clone in a `mktemp -d` directory or under /root has a parent only
// root may enter (`spawn …/initdb EACCES`). The package holding the binaries is closed here the same way.
import { chmod, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { findFreePort } from './database-admin.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';
import { locateInitdb } from './postgres-binaries.js';

jest.setTimeout(60_000);

const asRoot = process.getuid?.() === 0;
let restore: (() => Promise<void>) | undefined;

// Here rather than in a finally: it must run even when a start that cannot spawn initdb never settles.
afterEach(async () => {
  await restore?.();
  restore = undefined;
});

describe('the embedded PostgreSQL started as root', () => {
  (asRoot ? it : it.skip)('reaches binaries behind a directory only root may enter', async () => {
    const closed = path.dirname(path.dirname(path.dirname(await locateInitdb())));
    const { mode } = await stat(closed);
    const port = await findFreePort();
    const dataDir = path.join(tmpdir(), `agentplane-as-root-pg-${process.pid}-${port}`);
    const log: string[] = [];
    restore = async () => {
      await chmod(closed, mode & 0o7777);
      await rm(dataDir, { recursive: true, force: true });
    };
    await chmod(closed, 0o700);
    const server = await startEmbeddedPostgres({ dataDir, port, persistent: false, log: (line) => log.push(line) });
    await server.stop();
    expect(log).toContain(
      `gave others search permission (o+x) on ${closed}: as root, PostgreSQL runs as the postgres user`,
    );
  });
});
