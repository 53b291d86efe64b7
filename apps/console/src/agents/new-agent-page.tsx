// At /agents/new, the form alone creates an agent, then opens its page.
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { useRole } from '../session/use-me';
import { createAgent, refreshAfterAgentWrite } from './agent-api';
import { AgentForm } from './agent-form';

export function NewAgentPage() {
  const { canWrite } = useRole();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  return (
    <section>
      <h1>New agent</h1>
      <AgentForm
        canWrite={canWrite}
        submitLabel="Create agent"
        onSubmit={async (body) => {
          const agent = await createAgent(body);
          await refreshAfterAgentWrite(queryClient);
          await navigate(`/agents/${agent.id}`);
        }}
      />
    </section>
  );
}
