# Sourced by ./colloquy and .ci/run: points JAVA_HOME at a JDK >= 21 (JAVA_HOME if it is one,
# then the JDK whose javac is on the PATH, then the JDKs under /usr/lib/jvm, newest first), or fails with one line.
# COLLOQUY_JVM_DIR names another folder of JDKs to look in instead of /usr/lib/jvm.
# select_jdk also sets JAVA_MAJOR to the chosen JDK's feature version: asking a JDK starts a JVM
# (about 50 ms on a quiet machine), which the launcher would otherwise do once per option it checks.
java_major() {
  "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p' | head -n1
}
is_jdk21() {
  [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ] || return 1
  local major
  major=$(java_major "$1")
  [ -n "$major" ] && [ "$major" -ge 21 ] 2>/dev/null || return 1
  JAVA_MAJOR=$major
}
select_jdk() {
  if [ -n "${JAVA_HOME:-}" ] && is_jdk21 "$JAVA_HOME"; then return 0; fi
  if command -v javac >/dev/null 2>&1; then
    local from_path
    from_path=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    if is_jdk21 "$from_path"; then export JAVA_HOME="$from_path"; return 0; fi
  fi
  local candidate
  for candidate in $(ls -d "${COLLOQUY_JVM_DIR:-/usr/lib/jvm}"/*/ 2>/dev/null | sort -V -r); do
    candidate=${candidate%/}
    if is_jdk21 "$candidate"; then export JAVA_HOME="$candidate"; return 0; fi
  done
  echo "colloquy: a JDK 21 or newer is required (none in JAVA_HOME, on the PATH or under ${COLLOQUY_JVM_DIR:-/usr/lib/jvm}); set JAVA_HOME to one" >&2
  return 1
}
