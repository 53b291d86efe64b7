-- Engines delete their own agent's finished inbound messages after the retention period
-- (apps/engine/src/whatsapp/inbound-retention.ts). The queue's policy engine_owns_its_queue (FOR ALL,
-- keyed on current_user) already limits a DELETE to the connected agent's rows, as it does its UPDATEs.
GRANT DELETE ON "inbound_messages" TO agentplane_engine;
