# syntax=docker/dockerfile:1
# The control plane. Build from the repository root:
#   docker build -f docker/manager.Dockerfile -t agentplane-manager .
ARG NODE_IMAGE=node:22.23.3-bookworm-slim

FROM ${NODE_IMAGE} AS build
ENV TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
RUN npm install -g pnpm@10.34.9
WORKDIR /repo
# Manifests first, so the dependency layer is cached until a lockfile or manifest changes.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
COPY apps/launcher/package.json apps/launcher/
COPY apps/manager/package.json apps/manager/
COPY apps/engine/package.json apps/engine/
COPY packages/contracts/package.json packages/contracts/
COPY packages/db/package.json packages/db/
COPY packages/server-kit/package.json packages/server-kit/
COPY bench/package.json bench/
RUN pnpm install --frozen-lockfile
COPY . .
RUN pnpm turbo run build --filter=@agentplane/manager... \
 && pnpm --filter=@agentplane/manager deploy --prod --legacy /out

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production PORT=8000 MIGRATIONS_DIR=/app/prisma/migrations
WORKDIR /app
COPY --from=build --chown=node:node /out ./
COPY --from=build --chown=node:node /repo/prisma/migrations ./prisma/migrations
USER node
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/api/v1/healthz').then((r) => process.exit(r.status < 500 ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/server.js"]
