import type { ReactNode } from 'react';
import { useRole } from '../session/use-me';

/** The webhook pages for admins and owners, as the API allows; the others are told who can. */
export function AdminsOnly({ children }: { children: ReactNode }) {
  const { canAdmin } = useRole();
  if (canAdmin) return children;
  return <p className="note">Only an admin or owner of this workspace can see and change its webhooks.</p>;
}
