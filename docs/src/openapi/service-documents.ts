// The OpenAPI documents the services build from their own route declarations.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { buildEngineOpenApi } from '@agentplane/engine/openapi';
import type { OpenApiDocument } from './render-openapi.js';

/** The manager's document, as `agentplane-manager openapi` prints it (no database needed). */
export function managerOpenApi(): OpenApiDocument {
  const manager = path.dirname(createRequire(import.meta.url).resolve('@agentplane/manager/package.json'));
  const json = execFileSync(process.execPath, [path.join(manager, 'dist/cli/main.js'), 'openapi'], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(json) as OpenApiDocument;
}

/** The engine's document: the API of one agent, built from the engine's route specs without an engine. */
export function engineOpenApi(): OpenApiDocument {
  // The renderer types only what it reads of the JSON; the generator's own type is OpenAPI's whole model.
  return buildEngineOpenApi() as unknown as OpenApiDocument;
}
