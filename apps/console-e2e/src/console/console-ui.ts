// How the tests drive the console: as a person using a screen reader would, by role and accessible name,
// never by CSS class or test id. Every page reached is checked with axe.
import type { Locator, Page } from 'playwright-core';
import { assertAccessible } from '../checks/accessibility.js';
import { saveScreenshot } from '../checks/screenshots.js';

/** Checks the page as it stands with axe (a page, or a form or message within it), and pictures it when named. */
export async function inspect(page: Page, what: string, options: { screenshot?: string } = {}) {
  await assertAccessible(page, what);
  if (options.screenshot) await saveScreenshot(page, options.screenshot);
}

/** What a person sees on the page now, for the message of a test that fails there. */
export async function describePage(page: Page): Promise<string> {
  const body = page.locator('body');
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what a person reads; textContent adds hidden nodes
  const text = await body.innerText().catch(() => '(unreadable)');
  return `at ${page.url()} the page shows:\n${text.slice(0, 3000)}`;
}

/** Waits for `locator` to show; one that never does fails saying what the page shows instead. */
export async function shown(locator: Locator, what: string): Promise<void> {
  try {
    await locator.waitFor();
  } catch (error) {
    throw new Error(`no ${what}; ${await describePage(locator.page())}\n${String(error)}`);
  }
}

/** Waits for the page titled `heading`, then inspects it. */
export async function arriveAt(page: Page, heading: string | RegExp, options: { screenshot?: string } = {}) {
  await shown(
    page.getByRole('heading', { name: heading, exact: typeof heading === 'string' }).first(),
    `page "${heading}"`,
  );
  await inspect(page, `the page "${heading}"`, options);
}

/** Follows the main navigation's link to a page and arrives there. */
export async function navigateTo(page: Page, name: string, options: { screenshot?: string } = {}) {
  await page.getByRole('navigation').getByRole('link', { name, exact: true }).first().click();
  await arriveAt(page, name, options);
}

/** Opens one of the page's tabs (an agent's Settings) and waits for it to be the selected one, then inspects the page. */
export async function openTab(page: Page, name: string, options: { screenshot?: string } = {}) {
  await page.getByRole('tab', { name, exact: true }).click();
  await shown(page.getByRole('tab', { name, exact: true, selected: true }), `the tab "${name}" selected`);
  await inspect(page, `the tab "${name}"`, options);
}

/** A control a person would press: a button, or a link styled as one ("Create agent"). */
export function control(scope: Page | Locator, name: string | RegExp): Locator {
  const exact = typeof name === 'string';
  return scope.getByRole('button', { name, exact }).or(scope.getByRole('link', { name, exact })).first();
}

/** A form field by its label. */
export function field(scope: Page | Locator, label: string | RegExp): Locator {
  return scope.getByLabel(label, { exact: typeof label === 'string' }).first();
}

/**
 * The error a field shows, as assistive technology reads it: once the field is marked invalid, the text
 * of what its aria-errormessage or aria-describedby point at.
 */
export async function errorOf(input: Locator): Promise<string> {
  await input.and(input.page().locator('[aria-invalid="true"]')).waitFor();
  return input.evaluate((element) => {
    const ids = `${element.getAttribute('aria-errormessage') ?? ''} ${element.getAttribute('aria-describedby') ?? ''}`;
    return ids
      .split(/\s+/)
      .filter(Boolean)
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' ')
      .trim();
  });
}

/** Calls the manager's API from inside the page, with the browser's own session cookie. */
export function callApiFromPage<T = unknown>(
  page: Page,
  method: string,
  path: string,
  options: { body?: unknown; workspaceId?: string } = {},
): Promise<{ status: number; body: T }> {
  return page.evaluate(
    async ({ method, path, body, workspaceId }) => {
      const headers: Record<string, string> = {};
      if (body !== undefined) headers['content-type'] = 'application/json';
      if (workspaceId) headers['x-workspace-id'] = workspaceId;
      const response = await fetch(`/api/v1${path}`, {
        method,
        headers,
        credentials: 'same-origin',
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    { method, path, body: options.body, workspaceId: options.workspaceId },
  ) as Promise<{ status: number; body: T }>;
}

/**
 * Presses "Delete" and confirms it if the console asks (its own dialog; a native confirm() is accepted by
 * the visitor's page), then waits for what should follow: the page moving on, or the refusal shown.
 */
export async function deleteAndConfirm(page: Page, outcome: Locator): Promise<void> {
  await page.getByRole('main').getByRole('button', { name: 'Delete', exact: true }).first().click();
  const dialog = page.getByRole('alertdialog').or(page.getByRole('dialog')).first();
  await dialog.or(outcome).first().waitFor();
  if (await dialog.isVisible()) await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
  await outcome.waitFor();
}
