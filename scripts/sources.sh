# Sourced by ./colloquy: what counts as a source of the build. Only the modules' src/ trees and the
# pom.xml files do; data directories (./data, any --data-dir inside the repository), build output
# and editor files never trigger a rebuild.
sources_newer_than() {
  local root=$1 stamp=$2 pom
  local trees=("$root/pom.xml")
  for pom in "$root"/*/pom.xml; do
    trees+=("$pom")
    [ -d "$(dirname "$pom")/src" ] && trees+=("$(dirname "$pom")/src")
  done
  find "${trees[@]}" -type f -newer "$stamp" -print -quit 2>/dev/null
}
