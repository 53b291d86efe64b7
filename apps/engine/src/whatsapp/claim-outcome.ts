// WhatsApp's messages are answered by the channels' worker; their outcomes are recorded as every channel's.
export { type ClaimOutcome, recordOutcome } from '../channels/claim-outcome.js';
