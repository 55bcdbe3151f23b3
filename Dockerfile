# syntax=docker/dockerfile:1
#
# Colloquy in a container: built with the Maven wrapper on a JDK 21, run on a JRE 21 as a non-root
# user. The image's command is `colloquy <subcommand>`, `serve` by default:
#
#   docker build -t colloquy:local .
#   docker run --rm -p 8080:8080 colloquy:local                       # one node, embedded PostgreSQL
#   docker run --rm -p 8090:8090 colloquy:local mock-llm --host 0.0.0.0 --port 8090
#
# Configuration is the same environment variables as `./colloquy` (README, reference.conf), plus
# COLLOQUY_JAVA_OPTS (JVM options and -Dkey=value settings, split on whitespace) and COLLOQUY_LOG_FORMAT.
# docker-compose.yml runs the full stack: PostgreSQL, Qdrant and a three-node cluster.

ARG JAVA_VERSION=21

# ---------------------------------------------------------------------------------------------- build
FROM eclipse-temurin:${JAVA_VERSION}-jdk AS build
WORKDIR /src
COPY . .
# The Maven distribution (~/.m2/wrapper) and the local repository are cached between builds.
# On JDK 21 no --sun-misc-unsafe-memory-access flag is passed (JDK 21 rejects it).
RUN --mount=type=cache,target=/root/.m2 \
    sh ./mvnw -B -q -DskipTests package \
 && test -n "$(ls app/target/colloquy-app-*.jar)" \
 && test -n "$(ls app/target/lib/*.jar)"

# -------------------------------------------------------------------------------------------- runtime
FROM eclipse-temurin:${JAVA_VERSION}-jre AS runtime

RUN groupadd --system --gid 10001 colloquy \
 && useradd --system --uid 10001 --gid colloquy --home-dir /var/lib/colloquy --shell /usr/sbin/nologin colloquy \
 && mkdir -p /var/lib/colloquy /opt/colloquy/bin \
 && chown colloquy:colloquy /var/lib/colloquy

# The launcher: what ./colloquy does once built, without the build step and the JDK 23+ flag.
#  - COLLOQUY_LOG_FORMAT=text switches to the plain-text logback configuration (default json).
#  - The heap may take 75 % of the container's memory; it starts small, grows as needed and is given
#    back when idle (G1, pauses aimed at 50 ms; classes unloaded only by a full collection, which keeps
#    the concurrent cycles' remark pauses near 1 ms); glibc keeps two malloc arenas; the JDK frees temporary
#    direct buffers over 256 KiB after use instead of keeping one per thread.
#  - `serve` starts from the class data a previous start archived in the data directory (class data
#    sharing; written when a node exits cleanly, on SIGTERM), so a restart with the volume is faster.
COPY --chmod=755 <<'EOF' /opt/colloquy/bin/colloquy
#!/bin/bash
set -euo pipefail
cd /opt/colloquy
export MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}"
java_opts=(-XX:MaxRAMPercentage=75.0 -XX:+ExitOnOutOfMemoryError -XX:+UseG1GC -Xms64m -XX:MaxGCPauseMillis=50
  -XX:G1PeriodicGCInterval=5000 -XX:MinHeapFreeRatio=10 -XX:MaxHeapFreeRatio=30 -XX:-ClassUnloadingWithConcurrentMark
  -Djdk.nio.maxCachedBufferSize=262144)
if [ "${1:-}" = "serve" ] && [ "${COLLOQUY_CLASS_CACHE:-on}" != "off" ]; then
  java_opts+=(-XX:+AutoCreateSharedArchive -XX:SharedArchiveFile="${COLLOQUY_DATA_DIR}/colloquy-serve.jsa" -Xlog:cds=error)
fi
if [ -n "${COLLOQUY_JAVA_OPTS:-}" ]; then
  read -r -a extra <<< "$COLLOQUY_JAVA_OPTS"
  java_opts+=("${extra[@]}")
fi
if [ "${COLLOQUY_LOG_FORMAT:-json}" = "text" ]; then
  java_opts+=(-Dlogback.configurationFile=logback-text.xml)
fi
exec java "${java_opts[@]}" -cp 'lib/*' dev.colloquy.app.cli.Cli "$@"
EOF

# Jars only: class data sharing archives no class directory.
COPY --from=build /src/app/target/lib/ /opt/colloquy/lib/
COPY --from=build /src/app/target/colloquy-app-*.jar /opt/colloquy/lib/

# Embedded PostgreSQL (when COLLOQUY_DB_URL is unset) and local indexes live here; mount a volume
# on it to keep them.
ENV COLLOQUY_DATA_DIR=/var/lib/colloquy
# Development would otherwise bind the container's loopback, which `docker run -p` cannot reach.
ENV COLLOQUY_HTTP_HOST=0.0.0.0
WORKDIR /opt/colloquy
USER colloquy:colloquy
# HTTP API, Pekko cluster (Artery)
EXPOSE 8080 25520
ENTRYPOINT ["/opt/colloquy/bin/colloquy"]
CMD ["serve"]
