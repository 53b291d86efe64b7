// Where an invitation link leads: accept it as the signed-in user (who must own the invited email).
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { api, expectOk } from '../api/api-client';
import { type ApiProblem, problemOf } from '../api/api-problem';
import { ME_KEY } from '../session/use-me';
import { ProblemAlert } from '../ui/problem-alert';

export function AcceptInvitationPage() {
  const { token = '' } = useParams();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [problem, setProblem] = useState<ApiProblem | undefined>();
  const accept = async () => {
    try {
      await expectOk(api.POST('/api/v1/invitations/{token}/accept', { params: { path: { token } } }));
      await queryClient.invalidateQueries({ queryKey: ME_KEY });
      await navigate('/agents');
    } catch (error) {
      setProblem(problemOf(error));
    }
  };
  return (
    <section>
      <h1>Invitation</h1>
      <p>You were invited to a workspace. Accept to become a member.</p>
      <ProblemAlert problem={problem} />
      <button type="button" onClick={() => void accept()}>
        Accept invitation
      </button>
    </section>
  );
}
