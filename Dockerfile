# syntax=docker/dockerfile:1.7
# Multi-stage build: dependencies and the Prisma client are built once, the runtime image keeps
# only production dependencies, the compiled JavaScript and the SQL migrations.

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
RUN npm run build && npm prune --omit=dev

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HTTP_HOST=0.0.0.0 \
    HTTP_PORT=8080 \
    DATA_DIR=/data
WORKDIR /app
RUN mkdir -p /data && chown node:node /data
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/prisma ./prisma
COPY --from=build --chown=node:node /app/package.json ./package.json
USER node
EXPOSE 8080
VOLUME ["/data"]
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.HTTP_PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# Migrations are applied at start by the bot itself (src/db/migrate.ts), before it connects to Discord.
# V8 flags, measured in bench/README.md ("Memory"): --liftoff-only keeps WebAssembly (Prisma's query
# compiler) on V8's baseline compiler, whose optimising tier-up leaves ~40-80 MB of native memory
# behind; --max-semi-space-size=4 caps the young generation at 2 x 4 MB (default 2 x 16 MB). They are
# node's own flags (not allowed in NODE_OPTIONS); `npm start` passes the same.
CMD ["node", "--liftoff-only", "--max-semi-space-size=4", "dist/src/main.js"]
