import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { api } from '../api/api-client';

export function SignOutButton() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const signOut = async () => {
    await api.POST('/api/v1/auth/logout');
    // Nothing of the signed-out user stays in memory for the next one.
    queryClient.clear();
    await navigate('/sign-in');
  };
  return (
    <button type="button" onClick={() => void signOut()}>
      Sign out
    </button>
  );
}
