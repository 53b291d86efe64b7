// The build's first step, before `vitepress build`: renders the API reference pages from the OpenAPI
// documents the services build from their own routes, so the docs cannot drift from what they serve.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type OpenApiDocument, type RenderedPage, renderOpenApiPages } from './openapi/render-openapi.js';

const DOCS = fileURLToPath(new URL('..', import.meta.url));
const GENERATED = path.join(DOCS, 'generated');

/** The manager's document, as `agentplane-manager openapi` prints it (no database needed). */
function managerOpenApi(): OpenApiDocument {
  const manager = path.dirname(createRequire(import.meta.url).resolve('@agentplane/manager/package.json'));
  const json = execFileSync(process.execPath, [path.join(manager, 'dist/cli/main.js'), 'openapi'], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(json) as OpenApiDocument;
}

/**
 * The engine's document, once the engine exports its builder (`@agentplane/engine/openapi`, with
 * `createEngineOpenApiDocument()`); until then the Engine API page is its prose alone.
 */
async function engineOpenApi(): Promise<OpenApiDocument | undefined> {
  const specifier: string = '@agentplane/engine/openapi';
  try {
    const module = (await import(specifier)) as { createEngineOpenApiDocument: () => OpenApiDocument };
    return module.createEngineOpenApiDocument();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') return undefined;
    throw error;
  }
}

function writeReference(name: string, document: OpenApiDocument): RenderedPage[] {
  writeFileSync(path.join(GENERATED, `${name}-openapi.json`), `${JSON.stringify(document, null, 2)}\n`);
  const dir = path.join(DOCS, 'pages/api', `${name}-reference`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const pages = renderOpenApiPages(document, { basePath: `/api/${name}-reference` });
  for (const page of pages) writeFileSync(path.join(dir, `${page.slug}.md`), page.markdown);
  return pages;
}

mkdirSync(GENERATED, { recursive: true });
const sidebar: Record<string, { slug: string; title: string }[]> = {};
for (const [name, document] of [
  ['manager', managerOpenApi()],
  ['engine', await engineOpenApi()],
] as const) {
  if (document === undefined) continue;
  sidebar[name] = writeReference(name, document).map(({ slug, title }) => ({ slug, title }));
}
// The site's sidebar lists the reference pages from this.
writeFileSync(path.join(GENERATED, 'api-pages.json'), `${JSON.stringify(sidebar, null, 2)}\n`);
