// The build's first step, before `vitepress build`: renders the API reference pages from the OpenAPI
// documents the services build from their own routes, so the docs cannot drift from what they serve.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type OpenApiDocument, type RenderedPage, renderOpenApiPages } from './openapi/render-openapi.js';
import { engineOpenApi, managerOpenApi } from './openapi/service-documents.js';

const DOCS = fileURLToPath(new URL('..', import.meta.url));
const GENERATED = path.join(DOCS, 'generated');

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
  ['engine', engineOpenApi()],
] as const) {
  sidebar[name] = writeReference(name, document).map(({ slug, title }) => ({ slug, title }));
}
// The site's sidebar lists the reference pages from this.
writeFileSync(path.join(GENERATED, 'api-pages.json'), `${JSON.stringify(sidebar, null, 2)}\n`);
