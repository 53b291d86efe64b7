import { createRequire } from 'node:module';
import path from 'node:path';
import { jestConfig } from '../../jest.preset.js';

const base = jestConfig({ database: true, testTimeout: 60_000 });

// The preset's "source" export condition (for our workspace packages) also matches third-party packages
// that publish their TypeScript under "source"; the MCP SDK's EventSource dependencies do. Point
// those at their built ESM instead.
const fromSdk = createRequire(createRequire(import.meta.url).resolve('@modelcontextprotocol/sdk/package.json'));
const distOf = (name, file) => path.join(path.dirname(fromSdk.resolve(`${name}/package.json`)), 'dist', file);

export default {
  ...base,
  moduleNameMapper: {
    ...base.moduleNameMapper,
    '^eventsource$': distOf('eventsource', 'index.js'),
    '^eventsource-parser$': distOf('eventsource-parser', 'index.js'),
    '^eventsource-parser/stream$': distOf('eventsource-parser', 'stream.js'),
  },
};
