-- A thread counts its messages, so that an append numbers them in the same statement that locks the
-- thread: one round trip, and concurrent appends to one thread still never share a seq.
ALTER TABLE "conversation_threads" ADD COLUMN "last_seq" INTEGER NOT NULL DEFAULT 0;

UPDATE "conversation_threads" t
SET "last_seq" = m.max_seq
FROM (SELECT "thread_id", max("seq") AS max_seq FROM "conversation_messages" GROUP BY "thread_id") m
WHERE m."thread_id" = t."id";
