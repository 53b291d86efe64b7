-- A workspace's daily spend in 16 stripes. Every run end of every agent of a workspace added to one
-- row, whose lock it held until its commit was flushed: a pool serving a workspace's agents ran their
-- ends one at a time (benchmark 9 saw its connections wait 15 ms a run on that row). Each agent now
-- adds to the stripe its id hashes to; a workspace's spend is the sum of its stripes, as a month's is
-- the sum of its days. An agent's own rows keep stripe 0.
ALTER TABLE "budget_spend" ADD COLUMN "stripe" SMALLINT NOT NULL DEFAULT 0;
ALTER TABLE "budget_spend" ADD CONSTRAINT "budget_spend_stripe_check"
  CHECK ("stripe" >= 0 AND "stripe" < 16 AND ("scope" = 'workspace' OR "stripe" = 0));
ALTER TABLE "budget_spend" DROP CONSTRAINT "budget_spend_pkey",
  ADD CONSTRAINT "budget_spend_pkey" PRIMARY KEY ("scope", "scope_id", "day", "stripe");
