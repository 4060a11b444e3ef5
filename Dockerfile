# One image for the API and the worker (docker-compose.yml picks the command).
# Stage 1 compiles TypeScript with the dev dependencies; stage 2 runs the JavaScript with the
# production dependencies only, as a non-root user.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY indexer ./indexer
COPY pipeline ./pipeline
COPY scripts ./scripts
RUN npm run build

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY mappings ./mappings
# The channel pages' stylesheet and script, read by the compiled server at start.
COPY web ./web
# The model cache of @xenova/transformers lives in node_modules: the app user must be able to write it.
RUN mkdir -p node_modules/@xenova/transformers/.cache && chown -R node:node node_modules/@xenova/transformers/.cache
USER node
EXPOSE 8080
# The API; the worker is `node dist/scripts/ops/worker.js`, ingest `node dist/scripts/ops/ingest.js <library>`.
CMD ["node", "dist/src/server.js"]
