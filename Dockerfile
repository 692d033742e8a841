# syntax=docker/dockerfile:1
# The SMS platform as a container image: a build stage, then a slim runtime on Node 24 (LTS) with production
# dependencies only, run as the unprivileged "node" user. It needs DATABASE_URL (the embedded PostgreSQL of
# `npm start` is for development and cannot run here).
#
#   docker build -t sms-platform .
#   docker run --rm -e DATABASE_URL=postgres://… sms-platform node dist/scripts/migrate.js   # the migrate step
#   docker run -d -e DATABASE_URL=postgres://… -e ROLE=api -p 3000:3000 sms-platform        # an API process
#
# No Docker engine runs where this project is developed, so this file is not built in CI. Every command it
# runs is one CI runs outside Docker, the same way, in test/deploy/production-build.test.ts: `npm ci`,
# `npm run build`, `npm ci --omit=dev` in a copy holding only dist/ and the package files, then
# `node dist/scripts/migrate.js`, `node dist/scripts/keys.js`, `node dist/server/main.js` (stopped with
# SIGTERM, exit 0) and `node dist/scripts/healthcheck.js`.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000
# main.js drains in-flight requests and jobs on SIGTERM and exits within 10 s (give `docker stop -t 15`).
STOPSIGNAL SIGTERM
# /readyz: database reachable and schema known. ROLE=worker containers serve no HTTP: disable it for them.
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 CMD ["node", "dist/scripts/healthcheck.js"]
# node as PID 1 directly (no npm in between), so SIGTERM reaches the server's own handler.
CMD ["node", "dist/server/main.js"]
