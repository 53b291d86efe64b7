// WhatsApp's messages answered by the channels' worker (channels/process-claim.ts), with the WhatsApp
// adapter built from WhatsApp's settings, and Graph's answer to a failed send named as Graph's.
import type { Logger } from '@agentplane/server-kit';
import { channelAdapters } from '../channels/channel-adapters.js';
import type { ClaimOutcome } from '../channels/claim-outcome.js';
import type { ClaimedMessage } from '../channels/inbound-queue.js';
import { processClaim as processChannelClaim } from '../channels/process-claim.js';
import type { AgentDb } from '../database/agent-db.js';
import type { WhatsAppSettings } from '../env.js';
import type { RunStore } from '../runs/recorded-run.js';
import type { AgentSnapshot } from '../snapshot/agent-snapshot.js';
import { createWhatsAppAdapter } from './whatsapp-adapter.js';

export { retryDelayMs } from '../channels/process-claim.js';

export type ClaimContext = {
  pool: AgentDb;
  agentId: string;
  settings: WhatsAppSettings;
  runs?: RunStore;
  signal: AbortSignal;
  log: Logger;
};

type GraphDetails = { graph: { graph_status: number | undefined; graph_code: string | number | undefined } };

export async function processClaim(
  context: ClaimContext,
  claim: ClaimedMessage,
  snapshot: AgentSnapshot,
): Promise<ClaimOutcome | (ClaimOutcome & GraphDetails)> {
  const adapters = channelAdapters([createWhatsAppAdapter(context.settings)]);
  const outcome = await processChannelClaim({ ...context, adapters }, claim, snapshot);
  if (!('api' in outcome) || outcome.api === undefined) return outcome;
  const { api, ...rest } = outcome;
  return { ...rest, graph: { graph_status: api.api_status, graph_code: api.api_code } };
}
