// The manager's build emits no declarations (nothing imports it but this); its one export used here.
declare module '@agentplane/manager/dist/config-docs.js' {
  import type { DocumentedEnv } from '@agentplane/server-kit';

  export const MANAGER_ENV: DocumentedEnv;
}

// The launcher's build emits no declarations either.
declare module '@agentplane/launcher/dist/launcher-env.js' {
  import type { DocumentedEnv } from '@agentplane/server-kit';

  export const LAUNCHER_ENV: DocumentedEnv;
}
