// docker/compose.yaml cannot run here (no Docker daemon), so this checks it against what operators
// follow: every variable a service is given is a documented one of that service (the configuration
// reference, generated from the services' schemas, and the page of the other variables), every required
// secret is written by the README's docker/.env one-liner, and every compose command in the README names
// files, profiles and services that exist.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';

const ROOT = path.resolve(import.meta.dirname, '../../..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const CONFIGURATION = readFileSync(path.join(ROOT, 'docs/pages/reference/configuration.md'), 'utf8');
const OTHER_VARIABLES = readFileSync(path.join(ROOT, 'docs/pages/reference/other-variables.md'), 'utf8');
const COMPOSE_TEXT = readFileSync(path.join(ROOT, 'docker/compose.yaml'), 'utf8');

type Service = {
  image?: string;
  command?: string[];
  profiles?: string[];
  user?: string;
  environment?: Record<string, string>;
  env_file?: { path: string }[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
};
const COMPOSE = parse(COMPOSE_TEXT) as { services: Record<string, Service> };

/**
 * What the docs say each variable is used by: the configuration reference's section of each service
 * ("## Manager"), and the "Used by" column of the other variables' table.
 */
function configurationTable(): Map<string, string> {
  const usedBy = new Map<string, string>();
  const add = (name: string, user: string) => usedBy.set(name, [usedBy.get(name), user].filter(Boolean).join(', '));
  let service = '';
  for (const line of CONFIGURATION.split('\n')) {
    if (line.startsWith('## ')) service = line.slice(3).trim().toLowerCase();
    const name = line.match(/^\| `([A-Z][A-Z0-9_]*)` \|/)?.[1];
    if (name !== undefined) add(name, service);
  }
  for (const line of OTHER_VARIABLES.split('\n')) {
    const cells = line.split(' | ').map((cell) => cell.trim());
    if (!cells[0]?.startsWith('| `') || cells.length < 4) continue;
    for (const [, name] of cells[0].matchAll(/`([A-Z][A-Z0-9_]*)`/g)) add(name as string, cells[1] as string);
  }
  return usedBy;
}

/** The docs' name for what runs in a service, as the configuration pages say it. */
function roleOf(name: string, service: Service): string | undefined {
  if (service.image === 'agentplane-manager') {
    return service.command?.join(' ').includes('migrations/cli.js') ? 'db:migrate' : 'manager';
  }
  if (service.image === 'agentplane-engine') return 'engine';
  return name === 'postgres' ? undefined : `unknown service ${name}`;
}

/** The variables the README's one-liner writes into docker/.env. */
function oneLinerVariables(): string[] {
  const line = README.split('\n').find((text) => text.includes('> docker/.env'));
  return [...(line ?? '').matchAll(/([A-Z][A-Z0-9_]*)=%s/g)].map((match) => match[1] as string);
}

function readmeComposeCommands(): string[] {
  return [...README.matchAll(/`?(docker compose [^`\n]+)`?/g)].map((match) => match[1] as string);
}

describe('docker/compose.yaml', () => {
  const table = configurationTable();

  it('gives each of our services only variables the docs document for it', () => {
    expect(table.size).toBeGreaterThan(40);
    const undocumented: string[] = [];
    for (const [name, service] of Object.entries(COMPOSE.services)) {
      const role = roleOf(name, service);
      if (!role) continue; // the postgres image's own settings, documented by that image
      for (const variable of Object.keys(service.environment ?? {})) {
        if (!table.get(variable)?.includes(role)) undocumented.push(`${name}: ${variable} (used by ${role})`);
      }
    }
    expect(undocumented).toEqual([]);
  });

  it('requires every secret it interpolates, and the README one-liner writes each of them to docker/.env', () => {
    const required = [...COMPOSE_TEXT.matchAll(/\$\{([A-Z][A-Z0-9_]*):\?/g)].map((match) => match[1]);
    expect(new Set(required)).toEqual(
      new Set(['SESSION_SECRET', 'SECRETS_KEY', 'POSTGRES_PASSWORD', 'AGENTPLANE_DB_PASSWORD']),
    );
    expect(new Set(oneLinerVariables())).toEqual(new Set(required));
  });

  const PLATFORM_SECRETS = /^(SECRETS_KEY|SESSION_SECRET|DATABASE_URL)$/;
  const platformSecretsOf = (service: Service) =>
    Object.keys(service.environment ?? {}).filter((variable) => PLATFORM_SECRETS.test(variable));

  it("runs a pool engine on the pool's credentials, issued by the manager's CLI into a volume only it reads, and places new agents on it", () => {
    const { manager, engine, 'pool-credentials': issuer } = COMPOSE.services as Record<string, Service>;
    const pool = engine?.environment?.ENGINE_POOL as string;
    expect(manager?.environment?.DEFAULT_ENGINE_POOL).toBe(pool);
    expect(manager?.environment?.ENGINE_POOLS).toMatch(new RegExp(`^${pool}=http`));
    expect(issuer?.environment?.ENGINE_POOLS).toBe(manager?.environment?.ENGINE_POOLS);

    // The one-shot runs the CLI (the script, mounted) for that pool, before the engine starts.
    expect(issuer?.command).toEqual(['sh', '/pool-credentials.sh', pool]);
    expect(issuer?.volumes).toContain('./pool-credentials.sh:/pool-credentials.sh:ro');
    expect(existsSync(path.join(ROOT, 'docker/pool-credentials.sh'))).toBe(true);
    expect(engine?.depends_on?.['pool-credentials']?.condition).toBe('service_completed_successfully');

    // The engine reads the credentials as files, from the volume mounted read-only, and no platform secret.
    const [volume, mountPoint] = (issuer?.volumes ?? []).find((entry) => !entry.startsWith('./'))?.split(':') ?? [];
    expect(engine?.volumes).toEqual([`${volume}:${mountPoint}:ro`]);
    expect(engine?.environment?.DATABASE_URL_FILE).toBe(`${mountPoint}/database-url`);
    expect(engine?.environment?.ENGINE_POOL_KEY_FILE).toBe(`${mountPoint}/pool-key`);
    expect(platformSecretsOf(engine as Service)).toEqual([]);
    expect(engine?.env_file).toBeUndefined();
    for (const variable of ['ENGINE_POOL', 'DATABASE_URL_FILE', 'ENGINE_POOL_KEY_FILE']) {
      expect(table.get(variable)).toContain('engine');
    }
  });

  it("gives a dedicated engine the agent's credentials the manager's CLI issues, never the platform secrets", () => {
    const dedicated = COMPOSE.services['dedicated-engine'] as Service;
    expect(dedicated.profiles).toEqual(['dedicated']);
    expect(dedicated.env_file?.map((file) => file.path)).toEqual(['engine.env']);
    expect(platformSecretsOf(dedicated)).toEqual([]);
    for (const variable of ['AGENT_ID', 'DATABASE_URL', 'AGENT_KEY']) expect(table.get(variable)).toContain('engine');
  });
});

describe("the README's compose commands", () => {
  const commands = readmeComposeCommands();

  it('read the secrets from docker/.env, which git ignores, and name files that exist', () => {
    expect(commands.length).toBeGreaterThanOrEqual(3);
    const gitignore = readFileSync(path.join(ROOT, '.gitignore'), 'utf8').split('\n');
    expect(gitignore).toContain('.env');
    for (const command of commands) {
      expect(command).toMatch(/^docker compose --env-file docker\/\.env -f docker\/compose\.yaml /);
      expect(existsSync(path.join(ROOT, command.split(' -f ')[1]?.split(' ')[0] as string))).toBe(true);
    }
  });

  it('name profiles and services the compose file has', () => {
    const profiles = new Set(Object.values(COMPOSE.services).flatMap((service) => service.profiles ?? []));
    for (const command of commands) {
      for (const [, profile] of command.matchAll(/--profile (\S+)/g)) expect(profiles).toContain(profile);
      const target = command.match(/ (?:exec -T|up -d|run --rm|restart) ([a-z][a-z-]*)/)?.[1];
      if (target) expect(Object.keys(COMPOSE.services)).toContain(target);
    }
  });
});
