// Writes the engine's OpenAPI document (the API of one agent) to the file named, or to stdout, without
// a running engine: `node apps/engine/scripts/write-openapi.mjs [out.json] [basePath]` after a build.
import { writeFileSync } from 'node:fs';
import { buildEngineOpenApi } from '../dist/openapi/engine-openapi.js';

const [out, basePath] = process.argv.slice(2);
const json = `${JSON.stringify(buildEngineOpenApi(basePath), null, 2)}\n`;
if (out === undefined || out === '-') process.stdout.write(json);
else writeFileSync(out, json);
