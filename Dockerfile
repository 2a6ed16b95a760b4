# syntax=docker/dockerfile:1
# prometheus-status-exporter: multi-stage build on a Node.js LTS slim image.
ARG NODE_VERSION=24

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
RUN npm run build

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ARG VERSION=dev
LABEL org.opencontainers.image.title="prometheus-status-exporter" \
      org.opencontainers.image.description="Polls the status APIs of Prometheus and Alertmanager and serves them as metrics" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0"
ENV NODE_ENV=production
# glibc keeps the freed memory of large buffers (a poll's answer chunks, rendered families) in its arenas
# for reuse, and raises its mmap threshold to the largest one freed: a daemon between polls kept ~65 MB
# more. A fixed threshold gives every buffer of 128 KiB or more back to the system when it is freed.
ENV MALLOC_MMAP_THRESHOLD_=131072
# One malloc arena for all threads: each thread's own arena (the decoder threads', the thread pool's) kept
# the freed small buffers of a poll apart; one arena reuses them. ~20 MB less between polls and at the
# peak at 100k targets, at the same CPU per poll.
ENV MALLOC_ARENA_MAX=1
WORKDIR /app
# Production dependencies only, exactly as locked; no install scripts run.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY config ./config
# Runs as the image's unprivileged user and writes nothing: a read-only root filesystem works.
USER node
EXPOSE 9816
# The main thread's young generation at 4 MiB semi-spaces: V8 grew it to ~20 MB more for the garbage of a
# large poll and kept it committed between polls (100k targets: ~20 MB less RSS, no more CPU). Decoder
# threads set their own (src/poll/worker-thread.ts). Outside the image: docs/performance.md.
ENTRYPOINT ["node", "--max-semi-space-size=4", "dist/main.js"]
CMD ["--config.file=/app/config/exporter.yml"]
