// The OpenAPI documents the services build from their own route declarations.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
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

/**
 * The engine's document, once the engine exports its builder as `@agentplane/engine/openapi`
 * (`buildEngineOpenApi()`, apps/engine/src/openapi/engine-openapi.ts); until then the Engine API page is
 * its prose alone.
 */
export async function engineOpenApi(): Promise<OpenApiDocument | undefined> {
  const specifier: string = '@agentplane/engine/openapi';
  try {
    const module = (await import(specifier)) as { buildEngineOpenApi: () => OpenApiDocument };
    return module.buildEngineOpenApi();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') return undefined;
    throw error;
  }
}
