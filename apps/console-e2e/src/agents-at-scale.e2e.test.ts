// The agents page with 1,000 agents: it pages through the API (no request asks for all of them), shows
// the first page, keeps the document small, and reaches later pages by asking for them.
import { randomUUID } from 'node:crypto';
import { ManagerClient } from '@agentplane/manager-client';
import { waitUntil } from '@agentplane/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { signInInConsole } from './console/account-flows.js';
import { navigateTo } from './console/console-ui.js';
import { createAgents } from './platform/bulk-agents.js';
import { type ConsolePlatform, startConsolePlatform } from './testing/console-platform.js';

const AGENTS = 1_000;
// Each create makes the agent's database role and schema and publishes its config: about 0.2 s of a
// loaded 2-core machine's time apiece, so the whole test may take minutes beside the rest of pnpm test.
const SCALE_TEST_TIMEOUT_MS = 1_200_000;
// The manager's page size when a list names none.
const DEFAULT_LIMIT = 100;

let platform: ConsolePlatform;

beforeAll(async () => {
  platform = await startConsolePlatform();
});

afterAll(async () => {
  await platform?.close();
});

describe('the agents page', () => {
  it(
    'shows 1,000 agents a page at a time, through the API’s pagination',
    async () => {
      const owner = { email: `many-${randomUUID()}@example.test`, password: 'a password with many agents' };
      const api = await ManagerClient.signUp(platform.consoleUrl, owner);
      await createAgents(api, AGENTS);
      const [first] = await api.expect<{ name: string }[]>(200, 'GET', '/agents/?limit=1');
      if (!first) throw new Error('no agent was created');

      const { page } = await platform.newVisitor();
      const lists: URL[] = [];
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (/^\/api\/v1\/agents\/?$/.test(url.pathname) && request.method() === 'GET') lists.push(url);
      });
      await signInInConsole(page, platform.consoleUrl, owner);
      await navigateTo(page, 'Agents', { screenshot: 'agents' });
      const agentLinks = page.getByRole('main').getByRole('link', { name: /^Agent \d{4}$/ });
      await page.getByRole('main').getByRole('link', { name: first.name, exact: true }).waitFor();

      const firstPage = new Set(await agentLinks.allInnerTexts());
      const shown = firstPage.size;
      expect(shown).toBeGreaterThan(0);
      expect(shown).toBeLessThan(AGENTS);
      expect(lists.length).toBeGreaterThan(0);
      for (const list of lists) {
        expect(Number(list.searchParams.get('limit') ?? DEFAULT_LIMIT)).toBeLessThan(AGENTS);
      }

      // Further agents come from further pages: a "Next" control, or scrolling a virtualised list.
      const next = page
        .getByRole('button', { name: /next/i })
        .or(page.getByRole('link', { name: /next/i }))
        .first();
      const laterPageAsked = () => lists.some((list) => Number(list.searchParams.get('offset') ?? 0) > 0);
      await waitUntil(
        async () => {
          if (laterPageAsked()) return true;
          if (await next.isVisible()) await next.click();
          else await agentLinks.last().scrollIntoViewIfNeeded();
          return laterPageAsked();
        },
        { what: 'the agents page to ask the API for a later page', timeoutMs: 60_000, intervalMs: 250 },
      );
      await waitUntil(async () => (await agentLinks.allInnerTexts()).some((name) => !firstPage.has(name)), {
        what: 'agents of a later page to be shown',
        timeoutMs: 60_000,
        intervalMs: 100,
      });
      for (const list of lists) {
        expect(Number(list.searchParams.get('limit') ?? DEFAULT_LIMIT)).toBeLessThan(AGENTS);
      }
    },
    SCALE_TEST_TIMEOUT_MS,
  );
});
