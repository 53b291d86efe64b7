// MCP_STDIO_COMMANDS: the stdio command lines an operator permits, parsed the same way by the manager
// (which refuses other command lines at write time) and by each engine (which refuses to spawn them).
import { z } from 'zod';

/** Extra arguments a tenant may add after the pinned ones, at most this many. */
export const STDIO_EXTRA_ARGS_MAX = 32;

function isRegExp(source: string): boolean {
  try {
    new RegExp(source, 'u');
    return true;
  } catch {
    return false;
  }
}

export const ZStdioCommandRule = z.strictObject({
  // Absolute, so no PATH lookup decides which binary runs.
  command: z.string().regex(/^\//, 'must be an absolute path such as /usr/bin/node'),
  /** Pinned arguments: a tenant's args must begin with exactly these (the script, its mode…). */
  args: z.array(z.string()).default(() => []),
  /**
   * false: no argument may follow the pinned ones. A regular expression: up to STDIO_EXTRA_ARGS_MAX
   * arguments may follow, each matching it as a whole (it is anchored).
   */
  extraArgs: z
    .union([z.literal(false), z.string().min(1).refine(isRegExp, 'must be a valid regular expression')])
    .default(false),
});
export type TStdioCommandRule = z.infer<typeof ZStdioCommandRule>;

/** The setting's text: a JSON array of rules, empty (no stdio server allowed) when unset. */
export const ZStdioCommandsSetting = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({
        code: 'custom',
        message: 'must be a JSON array such as [{"command":"/usr/bin/node","args":["/opt/mcp/server.js"]}]',
      });
      return z.NEVER;
    }
  })
  .pipe(z.array(ZStdioCommandRule));

function extraArgsAllowed(extra: readonly string[], rule: TStdioCommandRule): boolean {
  if (extra.length === 0) return true;
  if (rule.extraArgs === false || extra.length > STDIO_EXTRA_ARGS_MAX) return false;
  const pattern = new RegExp(`^(?:${rule.extraArgs})$`, 'u');
  return extra.every((arg) => pattern.test(arg));
}

/** True when one rule permits exactly this command line: its command, its pinned args, then allowed extras. */
export function isStdioCommandAllowed(
  line: { command: string; args: readonly string[] },
  rules: readonly TStdioCommandRule[],
): boolean {
  return rules.some(
    (rule) =>
      line.command === rule.command &&
      rule.args.every((arg, index) => line.args[index] === arg) &&
      line.args.length >= rule.args.length &&
      extraArgsAllowed(line.args.slice(rule.args.length), rule),
  );
}
