-- One durable inbound queue for every messaging provider (issue 34), generalised from WhatsApp's: a row
-- names its provider and the provider's conversation (a Slack channel or thread, a Telegram chat, …),
-- is unique per integration rather than per agent (two workspaces' Slack apps may reuse event ids), and
-- is answered in order per (agent, integration, conversation) instead of per sender.
ALTER TABLE "inbound_messages"
  -- 'WHATSAPP', 'SLACK', … (the integration's provider when the row was queued). Rows stored before
  -- channels, and writers that predate them, are WhatsApp's.
  ADD COLUMN "provider" TEXT NOT NULL DEFAULT 'WHATSAPP',
  -- The provider's conversation or thread; NULL for rows written without one (WhatsApp's, whose
  -- conversation is the sender): the claim reads coalesce(conversation, sender).
  ADD COLUMN "conversation" TEXT,
  -- A message to answer, or a press of an approval button that resumes a paused run.
  ADD COLUMN "kind" TEXT NOT NULL DEFAULT 'message',
  -- The reply's progress on the provider (the ids of messages posted while streaming), written under
  -- the lease, so a worker that takes over edits those messages rather than posting new ones.
  ADD COLUMN "reply_state" JSONB,
  -- The run this message started: an approval press is matched to the sender of the message whose run asked.
  ADD COLUMN "run_id" UUID,
  ADD CONSTRAINT "inbound_messages_kind_check" CHECK ("kind" IN ('message', 'approval'));

-- Backfill: every row so far is WhatsApp's (the default above), in the sender's own conversation.
UPDATE "inbound_messages" SET "conversation" = "sender" WHERE "conversation" IS NULL;

DROP INDEX "inbound_messages_agent_id_provider_message_id_key";
CREATE UNIQUE INDEX "inbound_messages_agent_id_integration_id_provider_message_id_key"
  ON "inbound_messages"("agent_id", "integration_id", "provider_message_id");

-- The claim's in-order check: is another message of this conversation being answered under a live lease?
CREATE INDEX "inbound_messages_agent_id_integration_id_conversation_idx"
  ON "inbound_messages"("agent_id", "integration_id", (coalesce("conversation", "sender")))
  WHERE "status" = 'processing';

-- An approval press finds the message whose run asked.
CREATE INDEX "inbound_messages_agent_id_run_id_idx" ON "inbound_messages"("agent_id", "run_id")
  WHERE "run_id" IS NOT NULL;

-- Runs answering a channel's messages are recorded under their provider, as WhatsApp's are.
ALTER TYPE "RunSource" ADD VALUE 'slack';
ALTER TYPE "RunSource" ADD VALUE 'telegram';
ALTER TYPE "RunSource" ADD VALUE 'discord';
ALTER TYPE "RunSource" ADD VALUE 'teams';
ALTER TYPE "RunSource" ADD VALUE 'google_chat';
