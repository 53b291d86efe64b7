// Signing up and in through the console's own pages.
import type { Page } from 'playwright-core';
import { arriveAt, control, describePage, field } from './console-ui.js';

export type Credentials = { email: string; password: string };

/** The main navigation, which only a signed-in person sees. */
export function signedInNavigation(page: Page) {
  return page.getByRole('navigation').getByRole('link', { name: 'Agents', exact: true }).first();
}

export async function signUpInConsole(page: Page, consoleUrl: string, user: Credentials & { name?: string }) {
  await page.goto(`${consoleUrl}/`);
  await arriveAt(page, 'Sign in', { screenshot: 'sign-in' });
  await control(page, 'Sign up').click();
  await arriveAt(page, 'Sign up');
  await field(page, 'Email').fill(user.email);
  await field(page, 'Password').fill(user.password);
  if (user.name !== undefined) await field(page, 'Name').fill(user.name);
  await page.getByRole('button', { name: 'Sign up', exact: true }).click();
  await expectSignedIn(page);
}

/** Waits to be signed in; a refusal the page shows (an alert, a field's error) fails at once, quoting it. */
async function expectSignedIn(page: Page) {
  const refusal = page.getByRole('alert').or(page.locator('[aria-invalid="true"]')).first();
  await signedInNavigation(page).or(refusal).first().waitFor();
  if (await refusal.isVisible()) {
    throw new Error(`the console did not sign in; ${await describePage(page)}`);
  }
}

export async function signInInConsole(page: Page, consoleUrl: string, user: Credentials) {
  await page.goto(`${consoleUrl}/`);
  await arriveAt(page, 'Sign in');
  await field(page, 'Email').fill(user.email);
  await field(page, 'Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expectSignedIn(page);
}
