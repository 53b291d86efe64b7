// `prisma generate` insists on locating a schema engine binary, which it would download; generation
// itself never runs it, so any existing file satisfies the check and this works offline.
import { spawnSync } from 'node:child_process';

const result = spawnSync('prisma', ['generate'], {
  stdio: 'inherit',
  env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.execPath, PRISMA_HIDE_UPDATE_MESSAGE: '1' },
});
process.exit(result.status ?? 1);
