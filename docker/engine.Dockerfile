# The runtime of agents: a pool of them (set ENGINE_POOL, DATABASE_URL_FILE and ENGINE_POOL_KEY_FILE from the
# pool's credentials) or one (AGENT_ID, DATABASE_URL_FILE and AGENT_KEY_FILE from its engine credentials).
# Build from the repository root, with Docker or without a daemon (buildah; see README, "Deploying with Docker"):
#   docker build -f docker/engine.Dockerfile -t agentplane-engine .
ARG NODE_IMAGE=node:22.23.3-bookworm-slim

FROM ${NODE_IMAGE} AS build
ENV TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
WORKDIR /repo
# Manifests first, so the dependency layer is cached until a lockfile or manifest changes.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml .pnpmfile.cjs docker/build-stage.sh ./
COPY apps/console/package.json apps/console/
COPY apps/console-e2e/package.json apps/console-e2e/
COPY apps/launcher/package.json apps/launcher/
COPY apps/manager/package.json apps/manager/
COPY apps/engine/package.json apps/engine/
COPY packages/agent-client/package.json packages/agent-client/
COPY packages/contracts/package.json packages/contracts/
COPY packages/db/package.json packages/db/
COPY packages/manager-client/package.json packages/manager-client/
COPY packages/server-kit/package.json packages/server-kit/
COPY packages/testing/package.json packages/testing/
COPY bench/package.json bench/
COPY docs/package.json docs/
RUN npm install -g --no-audit --no-fund "pnpm@$(node -p "require('./package.json').packageManager.split('@')[1]")" \
 && ./build-stage.sh install @agentplane/engine
COPY . .
RUN ./build-stage.sh deploy @agentplane/engine /out

FROM ${NODE_IMAGE} AS runtime
# tini runs as PID 1: it forwards signals to node and reaps orphaned children (stdio MCP servers).
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
ENV NODE_ENV=production PORT=8001
WORKDIR /app
# Owned by root: the node user reads and runs the code but cannot change it.
COPY --from=build /out ./
USER node
EXPOSE 8001
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/health').then((r) => process.exit(r.status < 500 ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/server.js"]
