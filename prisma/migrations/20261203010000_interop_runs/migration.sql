-- Runs started through an agent's MCP server and its A2A endpoint (issue 32), and the agent that
-- called when the caller is another agent of the workspace (an agent used as another's tool).
ALTER TYPE "RunSource" ADD VALUE 'mcp';
ALTER TYPE "RunSource" ADD VALUE 'a2a';

-- No foreign key: a caller's run outlives neither retention nor the caller's deletion in meaning, and
-- the callee's engine role may read no other agent's rows.
ALTER TABLE "agent_runs" ADD COLUMN "caller_agent_id" UUID;
ALTER TABLE "agent_runs" ADD COLUMN "caller_run_id" TEXT;
ALTER TABLE "agent_runs" ADD CONSTRAINT "agent_runs_caller_run_id_length" CHECK (char_length("caller_run_id") <= 256);
