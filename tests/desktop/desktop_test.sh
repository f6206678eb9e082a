#!/usr/bin/env bash
# The desktop app in a real window under Xvfb: it starts, renders more than a blank
# frame, and is screenshotted to build/screenshots/desktop.png for people to look at.
set -uo pipefail
cd "$(dirname "$0")/../.."
mkdir -p build/screenshots
out=build/screenshots/desktop.png
rm -f "$out"
log=$(mktemp); trap 'rm -f "$log"' EXIT
xvfb-run -a -s "-screen 0 1280x800x24" sh -c "
  build/native/llmmem-gui >'$log' 2>&1 & pid=\$!
  sleep 4
  import -window root '$out'
  kill \$pid 2>/dev/null; wait \$pid 2>/dev/null; true"
[ -s "$out" ] || { echo "no screenshot taken"; cat "$log"; exit 1; }
colours=$(identify -format %k "$out")
echo "desktop screenshot: $out, $colours distinct colours"
[ "$colours" -gt 50 ] || { echo "the window looks blank"; cat "$log"; exit 1; }
