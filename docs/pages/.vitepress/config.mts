// The documentation site. VitePress: Markdown pages, a build that fails on a dead internal link, local
// search, and fonts bundled with the theme, so building or reading it fetches nothing from elsewhere.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitepress';

type ApiPages = Record<string, { slug: string; title: string }[]>;

// Written by the build's first step (src/generate-pages.ts) from the services' OpenAPI documents.
const apiPagesFile = fileURLToPath(new URL('../../generated/api-pages.json', import.meta.url));
const apiPages: ApiPages = existsSync(apiPagesFile) ? JSON.parse(readFileSync(apiPagesFile, 'utf8')) : {};

function reference(name: string) {
  return (apiPages[name] ?? []).map(({ slug, title }) => ({ text: title, link: `/api/${name}-reference/${slug}` }));
}

export default defineConfig({
  title: 'Agentplane',
  description: 'An open platform for running AI agents',
  outDir: '../dist/site',
  cleanUrls: true,
  lastUpdated: false,
  themeConfig: {
    search: { provider: 'local' },
    nav: [
      { text: 'Guide', link: '/guide/getting-started' },
      { text: 'Concepts', link: '/concepts/architecture' },
      { text: 'API', link: '/api/manager' },
      { text: 'Operations', link: '/operations/deploy' },
      { text: 'Configuration', link: '/reference/configuration' },
    ],
    sidebar: [
      {
        text: 'Guide',
        items: [
          { text: 'Getting started', link: '/guide/getting-started' },
          { text: 'Web console', link: '/guide/console' },
          { text: 'Webhooks', link: '/guide/webhooks' },
          { text: 'Evaluations', link: '/guide/evaluations' },
        ],
      },
      {
        text: 'Concepts',
        items: [
          { text: 'Architecture', link: '/concepts/architecture' },
          { text: 'Workspaces and members', link: '/concepts/workspaces' },
          { text: 'Resources', link: '/concepts/resources' },
          { text: 'Agents', link: '/concepts/agents' },
          { text: 'Guardrails', link: '/concepts/guardrails' },
          { text: 'Versions', link: '/concepts/versions' },
          { text: 'Schedules', link: '/concepts/schedules' },
          { text: 'Placement', link: '/concepts/placement' },
          { text: 'The engine', link: '/concepts/engine' },
          { text: 'Protocols: AG-UI, MCP, A2A', link: '/concepts/protocols' },
        ],
      },
      {
        text: 'Manager API',
        items: [{ text: 'Conventions', link: '/api/manager' }, ...reference('manager')],
      },
      {
        text: 'Engine API',
        items: [
          { text: 'Runs and threads', link: '/api/engine' },
          { text: 'A2A peers', link: '/api/a2a' },
          ...reference('engine'),
        ],
      },
      {
        text: 'Channels',
        items: [
          { text: 'WhatsApp', link: '/channels/whatsapp' },
          { text: 'Google Chat', link: '/channels/google-chat' },
          { text: 'Discord', link: '/channels/discord' },
          { text: 'Microsoft Teams', link: '/channels/teams' },
          { text: 'Slack', link: '/channels/slack' },
          { text: 'Telegram', link: '/channels/telegram' },
        ],
      },
      {
        text: 'Reference',
        items: [
          { text: 'Configuration', link: '/reference/configuration' },
          { text: 'Local, test and bench variables', link: '/reference/other-variables' },
          { text: 'Security model', link: '/security' },
        ],
      },
      {
        text: 'Operations',
        items: [
          { text: 'Deploying with Docker', link: '/operations/deploy' },
          { text: 'Upgrades, keys, scaling, backups', link: '/operations/maintenance' },
          { text: 'Metrics', link: '/operations/metrics' },
          { text: 'Tracing', link: '/operations/tracing' },
        ],
      },
      {
        text: 'Performance',
        items: [
          { text: 'Method and figures', link: '/performance/' },
          { text: 'Investigation history', link: '/performance/history' },
        ],
      },
    ],
  },
});
