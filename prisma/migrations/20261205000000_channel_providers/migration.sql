-- Channels (issue 34): the messaging providers beside WhatsApp. Only values are added, so nothing
-- stored changes, and no statement of this migration uses them (a new enum value cannot be used in
-- the transaction that adds it).
ALTER TYPE "integration_provider" ADD VALUE IF NOT EXISTS 'SLACK';
ALTER TYPE "integration_provider" ADD VALUE IF NOT EXISTS 'TELEGRAM';
ALTER TYPE "integration_provider" ADD VALUE IF NOT EXISTS 'DISCORD';
ALTER TYPE "integration_provider" ADD VALUE IF NOT EXISTS 'TEAMS';
ALTER TYPE "integration_provider" ADD VALUE IF NOT EXISTS 'GOOGLE_CHAT';
