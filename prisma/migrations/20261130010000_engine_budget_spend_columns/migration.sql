-- Engines update three columns of budget_spend (the counters of addRunSpend's upsert). A table-wide
-- UPDATE let an engine role LOCK TABLE budget_spend in any mode, stalling every tenant's run ends;
-- with UPDATE on columns only (and INSERT), the strongest it may take is ROW EXCLUSIVE.
REVOKE UPDATE ON "budget_spend" FROM agentplane_engine;
GRANT UPDATE ("tokens", "cost_usd", "updated_at") ON "budget_spend" TO agentplane_engine;
