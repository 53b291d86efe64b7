// Tool names as models accept them: OpenAI and most compatible servers require ^[a-zA-Z0-9_-]{1,64}$.
export const TOOL_NAME_MAX_LENGTH = 64;
const SEPARATOR = '__';

const clean = (value: string) => value.replace(/[^a-zA-Z0-9_-]/g, '_');

/**
 * Names each MCP tool `<server>__<tool>` so two servers may offer tools of the same name, and keeps
 * every name unique and within the length limit, adding a counter when cleaning or cutting collides.
 */
export function createToolNamer(): (server: string, tool: string) => string {
  const taken = new Set<string>();
  return (server, tool) => {
    const base = `${clean(server)}${SEPARATOR}${clean(tool)}`.slice(0, TOOL_NAME_MAX_LENGTH);
    let name = base;
    for (let counter = 2; taken.has(name); counter++) {
      const suffix = `_${counter}`;
      name = `${base.slice(0, TOOL_NAME_MAX_LENGTH - suffix.length)}${suffix}`;
    }
    taken.add(name);
    return name;
  };
}
