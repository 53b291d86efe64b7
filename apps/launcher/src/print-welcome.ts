import { agentEndpointsOf } from '@agentplane/contracts';
import { type DemoAgent, demoStateFile } from './demo-agent.js';
import { say } from './prefixed-output.js';

const RUN_INPUT = {
  threadId: 'demo-thread',
  runId: 'demo-run-1',
  messages: [{ id: 'msg-1', role: 'user', content: 'Hello! What tools do you have?' }],
  tools: [],
  context: [],
  state: {},
  forwardedProps: {},
};

/** What a newcomer needs after `pnpm start`: where things are, how to sign in, a run to try. */
export function printWelcome(options: { managerPort: string; pool: string; poolUrl: string; demo: DemoAgent }): void {
  const { managerPort, pool, poolUrl, demo } = options;
  const manager = `http://localhost:${managerPort}`;
  // AGENTPLANE_DATA_DIR may put it anywhere: name the file where it is.
  const stateFile = demoStateFile();
  const endpoints = agentEndpointsOf(demo.engineUrl);
  const lines = [
    '',
    'Agentplane is running.',
    `  Console:      ${manager}/   (sign in below)`,
    `  Manager API:  ${manager}/api/v1/   (reference: ${manager}/api/v1/docs)`,
    `  Engine pool:  ${poolUrl}/   (pool "${pool}": new agents answer here at once, each under /agents/<agent id>/)`,
    `  Demo agent:   ${demo.engineUrl}/   (agent ${demo.agentId})`,
    demo.newPassword
      ? `  Sign in as ${demo.email} with password ${demo.newPassword}   (shown once; kept in ${stateFile})`
      : `  Sign in as ${demo.email}; the password is in ${stateFile}`,
    '',
    'Call the manager:',
    `  curl -c /tmp/agentplane.cookies -H 'Content-Type: application/json' -d '{"email":"${demo.email}","password":"${demo.newPassword ?? `<from ${stateFile}>`}"}' ${manager}/api/v1/auth/login`,
    `  curl -b /tmp/agentplane.cookies ${manager}/api/v1/agents/`,
    '',
    'Stream a run from the demo agent (this token is valid for 15 minutes;',
    `mint another with: curl -b /tmp/agentplane.cookies -X POST ${manager}/api/v1/agents/${demo.agentId}/token):`,
    `  curl -N ${demo.engineUrl}/agent/run \\`,
    `    -H 'Authorization: Bearer ${demo.token}' \\`,
    `    -H 'Content-Type: application/json' \\`,
    `    -d '${JSON.stringify(RUN_INPUT)}'`,
    '',
    'The same agent, with the same token, for MCP clients and A2A peers (docs/pages/concepts/protocols.md):',
    `  MCP server:   ${endpoints.mcp}`,
    `  A2A peer:     ${endpoints.a2a}   (card: ${endpoints.agent_card})`,
    '',
    'Press Ctrl-C to stop.',
  ];
  // Without the [launcher] prefix, so that the commands can be copied as they are.
  say('launcher', 'ready');
  process.stdout.write(`${lines.join('\n')}\n`);
}
