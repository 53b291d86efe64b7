// The agent whose page a tab is on, as the page read it: tabs need not read it again.
import { useOutletContext } from 'react-router';
import type { Agent } from './agent-api';

export const useAgentOfPage = () => useOutletContext<Agent>();
