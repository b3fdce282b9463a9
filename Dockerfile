# The gateway's image. BASE_IMAGE is any Debian-based image with Node.js 20.19 or newer, npm, and
# a `node` user with uid 1000: the official node image by default, or one built from Debian
# packages (deploy/debian/Dockerfile, target `node`) where Docker Hub cannot be reached.
ARG BASE_IMAGE=node:20-bookworm-slim

# Build stage: full install, Prisma client generation and TypeScript build. Install scripts are
# not run (npm 11 runs none unless allowed, older npm would): the build runs what it needs itself.
FROM ${BASE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json nest-cli.json prisma.config.ts ./
COPY scripts ./scripts
COPY prisma ./prisma
COPY src ./src
COPY web ./web
RUN npm run build && npm prune --omit=dev --ignore-scripts

# Runtime stage: compiled code, production dependencies and the SQL migrations only.
FROM ${BASE_IMAGE}
# Without DATABASE_URL the gateway runs its embedded Postgres in GATEWAY_DATA_DIR: /data, owned by
# the non-root `node` user (uid 1000) and declared a volume so keys and usage outlive the container.
# HOST=0.0.0.0: a container must listen beyond its own loopback (the gateway's default is
# 127.0.0.1); docker-compose.yml publishes the port on the host's 127.0.0.1 only.
ENV NODE_ENV=production PORT=8080 HOST=0.0.0.0 GATEWAY_DATA_DIR=/data
# Started as `npm run start:prod` starts it (a test keeps the two the same): glibc's malloc held to
# two arenas and V8's young generation to 16 MiB, about 20 MiB less RSS under load for no measured
# CPU (docs/performance.md, "Deviations from stock Nest/Express/Node").
ENV MALLOC_ARENA_MAX=2
WORKDIR /app
RUN mkdir -p /data && chown node:node /data && chmod 0700 /data
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/package.json ./package.json
COPY prisma/migrations ./prisma/migrations
COPY bin ./bin
# `gateway keys create ...` in the container (docker compose exec gateway gateway ...).
RUN ln -s /app/bin/gateway.js /usr/local/bin/gateway
USER node
VOLUME ["/data"]
EXPOSE 8080
CMD ["node", "--liftoff-only", "--heap-growing-percent=100", "--max-semi-space-size=8", "dist/main.js"]
