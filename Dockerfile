# One image for the API and the worker (docker-compose.yml picks the command).
# Stage 1 compiles TypeScript with the dev dependencies; stage 2 runs the JavaScript with the
# production dependencies only, as a non-root user.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY core ./core
COPY src ./src
COPY indexer ./indexer
COPY importer ./importer
COPY pipeline ./pipeline
# The production command lines (worker, ingest, reindex, keys, import, follow, webhooks); scripts/ is development tooling and stays out.
COPY bin ./bin
RUN npm run build

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
# The worker's transcription client probes and cuts audio with ffprobe and ffmpeg (Debian's package).
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg \
 && rm -rf /var/lib/apt/lists/*
# FOLLOW_LIBRARY_DIR in docker-compose.yml: made here and owned by the app user, so a fresh named volume mounted on it
# starts writable (Docker copies the folder's owner into an empty volume).
RUN mkdir -p /var/lib/creator-content/follow && chown node:node /var/lib/creator-content/follow
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
# The API; the worker is `node dist/bin/worker.js`, ingest `node dist/bin/ingest.js <library>`,
# following a feed `node dist/bin/follow.js <feed URL> --channel <slug> --owner <user id>` (in the worker's container).
CMD ["node", "dist/src/server.js"]
