#!/usr/bin/env bash
# Switch benchmarks (root: they make network namespaces). Builds the runnable jar on first use, like ./urdma.
#   sudo switch-emu/bench.sh forwarding [FRAMES [SIZE [MTU [ROUNDS [SPIN|BACKOFF|WAIT [RX_RING_MB [NICE [V2|V3]]]]]]]]
#   sudo switch-emu/bench.sh delay [SECONDS [SIZE [RATES [DELAYS [egress|ingress [NICE]]]]]]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$here/dist/target/urdma.jar"
JH="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
case "${1:-}" in
  forwarding) main=org.urdma.switchemu.rt.SwitchBlast ;;
  delay) main=org.urdma.switchemu.rt.SwitchDelay ;;
  *) sed -n '2,4p' "$0" >&2; exit 2 ;;
esac
shift
if [ ! -f "$jar" ] || [ -n "${URDMA_REBUILD:-}" ]; then
  echo "bench.sh: building $jar ..." >&2
  (cd "$here" && JAVA_HOME="$JH" mvn -q -B -DskipTests -pl dist -am package) >&2
fi
exec "$JH/bin/java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow \
  --add-exports java.base/jdk.internal.misc=ALL-UNNAMED ${URDMA_JAVA_OPTS:-} -cp "$jar" "$main" "$@"
