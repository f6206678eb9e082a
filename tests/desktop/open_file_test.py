#!/usr/bin/env python3
"""The desktop app's "Open file..." (issue 32) driven as a user would, under Xvfb with
xdotool: click the button, type a folder into the path field and press Enter, double-click a
training program's YAML; its settings are then the configuration, as `llmmem --from` reads
them. Up/Down and Enter open a file too, and Escape closes the dialog. The app writes its
test state (app::TestStateJson: the marks in window pixels) to $LLMMEM_TEST_STATE after each
frame. Run inside xvfb-run (tests/desktop/desktop_test.sh); screenshots go to build/screenshots/.

  xvfb-run -a -s "-screen 0 1280x800x24" /usr/bin/python3 tests/desktop/open_file_test.py
"""
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
FOLDER = "tests/data/program_files"
YAML = "axolotl_llama3_qlora.yml"
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def xdo(*args):
    subprocess.run(["xdotool", *args], check=True)


def key(name):
    """Held for a few frames: Dear ImGui 1.86 reads a key's state once a frame, so a press and
    release within one frame (xdotool key) would never be seen; a person's press lasts longer."""
    xdo("keydown", name)
    time.sleep(0.12)
    xdo("keyup", name)


def state(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def wait_for(path, pred, seconds=15):
    """The first state for which pred holds, or the last one read."""
    end, last = time.time() + seconds, None
    while time.time() < end:
        s = state(path)
        if s is not None:
            last = s
            try:
                if pred(s):
                    return s, True
            except (KeyError, TypeError, IndexError):
                pass
        time.sleep(0.1)
    return last, False


def click(item, double=False):
    x, y, w, h = item[:4]
    xdo("mousemove", str(int(x + w / 2)), str(int(y + h / 2)))
    time.sleep(0.15)  # a frame for the hover
    xdo("click", *(["--repeat", "2", "--delay", "80"] if double else []), "1")


def screenshot(name):
    out = os.path.join(ROOT, "build", "screenshots", name)
    subprocess.run(["import", "-window", "root", out], check=False)


def main():
    os.makedirs(os.path.join(ROOT, "build", "screenshots"), exist_ok=True)
    # The app keeps the card on screen (the first screen's RTX 4090), as the page does.
    cli = subprocess.run([os.path.join(ROOT, "build/native/llmmem"), "--from", os.path.join(FOLDER, YAML),
                          "--gpu", "RTX-4090-24GB", "--json"],
                         cwd=ROOT, capture_output=True, text=True)
    expected = json.loads(cli.stdout)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "state.json")
        env = dict(os.environ, LLMMEM_TEST_STATE=path, XDG_CONFIG_HOME=tmp)
        app = subprocess.Popen([os.path.join(ROOT, "build/native/llmmem-gui")], cwd=ROOT, env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            s, ok = wait_for(path, lambda s: s["items"]["open_file"][4] == 1, 30)
            check(ok, "the first screen shows 'Open file...'")
            if not ok:
                return
            first_config = s["config"]
            click(s["items"]["open_file"])
            s, ok = wait_for(path, lambda s: "browser_path" in s["items"] and s["popup_open"])
            check(ok, "the button opens the dialog, its path field first")
            check(ok and "browser_scripts/" in s["items"] and "browser_README.md" not in s["items"],
                  "it lists the working directory's folders and only the files the app reads")
            key("ctrl+a")
            xdo("type", "--delay", "20", FOLDER)
            key("Return")
            s, ok = wait_for(path, lambda s: "browser_" + YAML in s["items"])
            check(ok, "a folder typed and Enter shows its files")
            screenshot("desktop-open-file.png")
            if not ok:
                return
            click(s["items"]["browser_" + YAML], double=True)
            s, ok = wait_for(path, lambda s: "browser_path" not in s["items"] and s["config"] != first_config)
            check(ok, "a double-click on the YAML opens it and closes the dialog")
            check(ok and "stack=axolotl" in s["config"], "the configuration is axolotl's, as the file says")
            check(ok and s["peak_bytes"] == expected["per_gpu"]["total_bytes"],
                  "the peak equals llmmem --from ... --gpu RTX-4090-24GB's (%s against %s bytes)" %
                  (s.get("peak_bytes") if s else None, expected["per_gpu"]["total_bytes"]))
            screenshot("desktop-open-file-applied.png")

            # Keyboard: the dialog opens in the folder shown last; Down, Enter opens the first
            # file after the folders; Escape closes at once.
            click(s["items"]["open_file"])
            s, ok = wait_for(path, lambda s: "browser_" + YAML in s["items"])
            check(ok, "it opens again in the folder shown last")
            before = s["config"]
            key("Down")
            key("Return")
            s, ok = wait_for(path, lambda s: "browser_path" not in s["items"] and s["config"] != before)
            check(ok and "fsdp" in s["config"], "Down, Enter opens the first file (accelerate's FSDP2 YAML)")
            click(s["items"]["open_file"])
            s, ok = wait_for(path, lambda s: "browser_path" in s["items"])
            key("Escape")
            s, ok = wait_for(path, lambda s: "browser_path" not in s["items"] and not s["popup_open"])
            check(ok, "Escape closes it at once, from the path field")
        finally:
            app.terminate()
            app.wait(10)
    print("%d failed" % len(failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
