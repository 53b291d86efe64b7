// Benchmark 11: benchmark 4's setup (one engine, the mock model, POST /agent/run, each run a new thread)
// with guardrails off and on in turns, the way an operator turns them: the agent references a guardrail
// of 10 pattern rules and a PII rule, all on the output, or none. The mock model's replies match no rule,
// as most replies do: what is measured is the streaming filter's cost on every delta, not a block.
// One engine for both sides, so that no difference between two processes passes for the guardrails'.
import { GUARDRAIL_BLOCKED_CODE, PII_ENTITIES } from '@agentplane/contracts';
import { ManagerClient } from '@agentplane/manager-client';
import { type ContenderFigures, compareEngines, runBody, soleAgentRuns } from './engine-comparison.js';
import { MOCK_AGENT, startAgentEngine } from './engine-process.js';
import type { Service } from './service-process.js';
import { waitForConfigVersion } from './traced-config.js';

export const GUARDRAIL_PATTERN_RULES = 10;

/** A phrase of the guardrail: a reply holding it is blocked, so a run can show the rules are applied. */
const BANNED_PHRASE = 'banned topic 7';

/** Ten pattern rules of three phrases and two bounded regexes each, then every PII entity, redacted. */
const BENCH_GUARDRAIL = {
  name: 'bench output rules',
  guardrail: {
    description: "Benchmark 11's rules: none matches the mock model's replies",
    rules: [
      ...Array.from({ length: GUARDRAIL_PATTERN_RULES }, (_, index) => ({
        name: `patterns ${index}`,
        kind: 'pattern',
        phrases: [`banned topic ${index}`, `insider tip ${index}`, `project codename ${index}`],
        regexes: [`secret-${index}-[0-9]{4,12}`, `ticket ${index}[a-z]{2}-[0-9]{1,8}`],
        position: 'output',
        action: 'block',
      })),
      { name: 'personal data', kind: 'pii', entities: [...PII_ENTITIES], position: 'output', action: 'redact' },
    ],
  },
};

export type GuardrailRunsResult = {
  off: ContenderFigures;
  on: ContenderFigures;
  rounds: number;
  rules: number;
  /** Whether a reply holding a banned phrase ended its run with RUN_ERROR guardrail_blocked under "on". */
  applied: boolean;
};

/** Whether a run whose reply echoes the banned phrase ends with the guardrail's RUN_ERROR. */
async function blocksBannedReply(url: string, headers: Record<string, string>): Promise<boolean> {
  const response = await fetch(url, { method: 'POST', headers, body: runBody(`Say ${BANNED_PHRASE}`) });
  const stream = await response.text();
  return stream.includes('"RUN_ERROR"') && stream.includes(GUARDRAIL_BLOCKED_CODE);
}

export async function benchGuardrailRuns(options: {
  managerUrl: string;
  rounds: number;
  roundSeconds: number;
}): Promise<GuardrailRunsResult> {
  const client = await ManagerClient.signUp(options.managerUrl);
  let engine: Service | undefined;
  try {
    const guardrail = await client.expect<{ id: string }>(201, 'POST', '/guardrails/', BENCH_GUARDRAIL);
    const started = await startAgentEngine(client, options.managerUrl, MOCK_AGENT);
    engine = started.engine;
    const engineUrl = engine.url;
    const guard = (guardrailIds: string[]) => async () => {
      const patched = await client.expect<{ engine_config_version: number }>(
        200,
        'PATCH',
        `/agents/${started.agentId}`,
        { ...MOCK_AGENT, resources: { guardrail_ids: guardrailIds } },
      );
      await waitForConfigVersion(engineUrl, patched.engine_config_version);
    };
    const figures = await compareEngines(
      {
        off: { url: engineUrl, runs: soleAgentRuns(started.headers), prepare: guard([]) },
        on: { url: engineUrl, runs: soleAgentRuns(started.headers), prepare: guard([guardrail.id]) },
      },
      // As benchmark 4: many short rounds, whose back-to-back pairs cancel this machine's drift.
      { rounds: options.rounds, seconds: options.roundSeconds, firstEventRuns: 300 },
    );
    await guard([guardrail.id])();
    const applied = await blocksBannedReply(`${engineUrl}/agent/run`, started.headers);
    return {
      ...figures,
      rounds: options.rounds,
      rules: BENCH_GUARDRAIL.guardrail.rules.length,
      applied,
    };
  } finally {
    await engine?.stop();
  }
}
