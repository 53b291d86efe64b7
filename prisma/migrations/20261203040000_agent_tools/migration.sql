-- Agents as tools of other agents (issue 32). An MCP server of transport "agent" names the agent of its
-- workspace it calls; RESTRICT keeps that agent until no MCP server points at it, so a delete racing an
-- attach never leaves a server pointing at nothing.
ALTER TABLE "mcp_servers" ADD COLUMN "agent_id" UUID;
ALTER TABLE "mcp_servers" ADD CONSTRAINT "mcp_servers_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
CREATE INDEX "mcp_servers_agent_id_idx" ON "mcp_servers"("agent_id");

-- The SHA-256 of the credential an agent's engine asks the manager for agent-call tokens with; the
-- credential itself is only in the agent's sealed engine_config. Null while the agent calls no agent.
ALTER TABLE "agents" ADD COLUMN "call_credential_hash" TEXT;
