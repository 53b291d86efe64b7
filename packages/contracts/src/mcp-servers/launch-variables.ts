// Environment variables that change which code a process loads or how its interpreter starts. A
// tenant's stdio MCP server may not set them: with one of these, a permitted command line runs any code.

/** Names refused exactly (compared in upper case: npm and some runtimes read lower-case variants too). */
const LAUNCH_VARIABLES = new Set([
  'PATH',
  'ENV',
  'BASH_ENV',
  'SHELLOPTS',
  'BASHOPTS',
  'PS4',
  'IFS',
  'CDPATH',
  'GCONV_PATH',
  'GLIBC_TUNABLES',
  'HOSTALIASES',
  'LOCPATH',
  'NLSPATH',
  'CLASSPATH',
  '_JAVA_OPTIONS',
  'JDK_JAVA_OPTIONS',
  'GEM_HOME',
  'GEM_PATH',
  'BUNDLE_GEMFILE',
  'PHPRC',
  'PHP_INI_SCAN_DIR',
  'DOTNET_STARTUP_HOOKS',
  'ZDOTDIR',
]);

/**
 * Families refused by prefix: the dynamic loader (LD_, DYLD_), Node (NODE_OPTIONS, NODE_PATH…), Python,
 * Perl, Ruby, Java, Lua, npm/npx configuration (a registry or script shell of the tenant's choosing),
 * .NET's profiler hooks, git's helper commands and Bun/Deno options.
 */
const LAUNCH_VARIABLE_PREFIXES = [
  'LD_',
  'DYLD_',
  'NODE_',
  'PYTHON',
  'PERL',
  'RUBY',
  'JAVA_',
  'JVM_',
  'LUA_',
  'NPM_CONFIG_',
  'YARN_',
  'COREPACK_',
  'CORECLR_',
  'COMPLUS_',
  'DOTNET_',
  'GIT_',
  'BUN_',
  'DENO_',
];

/** A portable environment variable name; anything else (an `=`, a NUL, a space) is refused outright. */
export const ENV_VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** True for a variable that would let a tenant change what a permitted command line executes. */
export function isLaunchVariable(name: string): boolean {
  const upper = name.toUpperCase();
  return LAUNCH_VARIABLES.has(upper) || LAUNCH_VARIABLE_PREFIXES.some((prefix) => upper.startsWith(prefix));
}

/** Why a stdio server's `env` name is refused, or undefined when it may be set. */
export function describeRefusedEnvName(name: string): string | undefined {
  if (!ENV_VARIABLE_NAME.test(name)) return 'Must be an environment variable name (letters, digits and _)';
  if (isLaunchVariable(name)) {
    return `${name} changes which code the server loads (a loader or interpreter setting) and cannot be set`;
  }
  return undefined;
}
