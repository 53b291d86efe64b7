// `pnpm --filter @agentplane/docs config-reference`: rewrites the configuration page from the schemas,
// after checking that every variable has its docs.
import { writeFileSync } from 'node:fs';
import { CONFIG_REFERENCE_FILE } from './config-reference-file.js';
import { envDocProblems, renderConfigReference } from './render-config-reference.js';
import { SERVICE_ENVS } from './service-envs.js';

const problems = SERVICE_ENVS.flatMap(envDocProblems);
if (problems.length > 0) {
  console.error(`The environment docs disagree with the schemas:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
writeFileSync(CONFIG_REFERENCE_FILE, renderConfigReference(SERVICE_ENVS));
console.log(`wrote ${CONFIG_REFERENCE_FILE}`);
