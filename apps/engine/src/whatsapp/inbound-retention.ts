// The queue's retention is the channels' now; WhatsApp's rows are pruned with every other provider's.
export { pruneFinishedMessages, startInboundPruner } from '../channels/inbound-retention.js';
