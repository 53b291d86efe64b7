// For platform operators: the credentials a dedicated engine for this agent starts with. Issuing rotates
// the role's password, so they are shown once and the engines running on the old ones must be restarted.
import { useState } from 'react';
import type { Schemas } from '../api/api-client';
import { type ApiProblem, problemOf } from '../api/api-problem';
import { ProblemAlert } from '../ui/problem-alert';
import { issueEngineCredentials } from './agent-api';

export function EngineCredentials({ agentId }: { agentId: string }) {
  const [credentials, setCredentials] = useState<Schemas['EngineCredentials'] | undefined>();
  const [problem, setProblem] = useState<ApiProblem | undefined>();
  const issue = async () => {
    setProblem(undefined);
    try {
      setCredentials(await issueEngineCredentials(agentId));
    } catch (error) {
      setProblem(problemOf(error));
    }
  };
  return (
    <section aria-labelledby="credentials-heading">
      <h2 id="credentials-heading">Engine credentials</h2>
      <p className="note">Issuing new ones ends the old ones: restart the agent's engines with these.</p>
      <button type="button" onClick={() => void issue()}>
        Issue engine credentials
      </button>
      <ProblemAlert problem={problem} />
      {credentials && (
        <pre>
          {`AGENT_ID=${credentials.agent_id}\nDATABASE_URL=${credentials.database_url}\nAGENT_KEY=${credentials.agent_key}`}
        </pre>
      )}
    </section>
  );
}
