// axe-core run inside the page: a serious or critical violation fails the test, naming the rule, the
// elements and how to fix them.
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const { source: AXE_SOURCE } = createRequire(import.meta.url)('axe-core') as { source: string };
const BLOCKING_IMPACTS = new Set(['serious', 'critical']);

type AxeViolation = {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: { target: unknown[]; html: string; failureSummary?: string }[];
};

function describeViolation(violation: AxeViolation): string {
  const nodes = violation.nodes
    .slice(0, 5)
    .map((node) => `    ${JSON.stringify(node.target)} ${node.html.slice(0, 160)}\n      ${node.failureSummary ?? ''}`)
    .join('\n');
  return `  ${violation.impact}: ${violation.id} (${violation.help}, ${violation.helpUrl})\n${nodes}`;
}

/** Runs axe on the page as it is now; throws when it finds a serious or critical violation. */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  // Evaluated through the debugging protocol, not a <script> tag, so the console's CSP stays as it is.
  const loaded = await page.evaluate('typeof window.axe === "object"');
  if (!loaded) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document) => Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run(document)).violations;
  })) as AxeViolation[];
  const blocking = violations.filter((violation) => BLOCKING_IMPACTS.has(violation.impact ?? ''));
  if (blocking.length > 0) {
    throw new Error(
      `axe found ${blocking.length} serious or critical violation(s) on ${what}:\n${blocking.map(describeViolation).join('\n')}`,
    );
  }
}
