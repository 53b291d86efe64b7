/**
 * Sets variables in this process's environment (code that reads process.env itself, like the OpenAI SDK
 * or an agent module, sees them) and returns the function that puts back what was there before.
 */
export function overrideEnvironment(variables: Record<string, string>): () => void {
  const saved = new Map(Object.keys(variables).map((name) => [name, process.env[name]]));
  Object.assign(process.env, variables);
  return () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
}
