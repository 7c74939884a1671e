#!/usr/bin/env python3
"""Runs the README's shell examples, in order, as a newcomer would, so that they cannot drift from what happens.

    server/Tests/README/readme_test.py [--binary PATH]

Starts `remote-config serve` (default: server/.build/debug/remote-config) on a free loopback port with its data in
`.remote-config` of a fresh folder, as `scripts/serve` does in a clone, and the App Store lookup pointed at a
local stand-in (`--store-lookup-url`) that lists the app at version 2.4.0. Then runs every ```sh block of
README.md but the one that starts the server, one after another in one bash (so variables carry over, with
`set -euo pipefail`) in that folder, with `http://127.0.0.1:8080` replaced by the server's address and
`scripts/remote-config` running the same binary (REMOTE_CONFIG_BINARY). Each block must exit 0, and every
`# {…}` answer the README prints must match the answer the command before it gave: each `"field":value` pair in
the comment appears in the answer (a value with … is left unchecked). Ends with "N passed, M failed" (exit 1 on
any failure). scripts/test runs it; it takes a few seconds.
"""
import argparse, http.server, json, os, re, shutil, socket, subprocess, sys, tempfile, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
README = os.path.join(ROOT, "README.md")
DEBUG_BINARY = os.path.join(ROOT, "server", ".build", "debug", "remote-config")
README_BASE = "http://127.0.0.1:8080"


class StoreStandIn(http.server.BaseHTTPRequestHandler):
    """Apple's lookup answer for the README's placeholder app: version 2.4.0, released long ago."""

    def do_GET(self):
        body = json.dumps({"resultCount": 1, "results": [{
            "version": "2.4.0", "trackViewUrl": "https://apps.apple.com/jp/app/my-app/id123456789",
            "minimumOsVersion": "15.0", "currentVersionReleaseDate": "2026-01-05T08:00:00Z",
            "releaseNotes": "Bug fixes."}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/javascript; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def sh_blocks(text):
    """The README's ```sh blocks, in order."""
    return re.findall(r"^```sh\n(.*?)^```", text, flags=re.M | re.S)


def expected_pairs(comment):
    """The `"field":value` pairs of a `# {…}` comment, without those whose value is elided."""
    pairs = re.findall(r'"(\w+)":("[^"]*"|true|false|null|-?[0-9.]+)', comment)
    return [(key, value) for key, value in pairs if "…" not in value]


def script_for(blocks, base, binary):
    """One bash script running the blocks in order, each answer's output framed by markers."""
    lines = ["set -euo pipefail", f"export REMOTE_CONFIG_BINARY={binary}"]
    for index, block in enumerate(blocks):
        block = block.replace(README_BASE, base).replace("scripts/remote-config", os.path.join(ROOT, "scripts", "remote-config"))
        lines.append(f"echo '@@block {index}'")
        # A command followed by a `# {…}` comment: mark where its answer ends, so the comment is checked against it.
        answer = 0
        for line in block.splitlines():
            if line.startswith("# {"):
                lines.append(f"echo; echo '@@answer {index}.{answer}'")
                answer += 1
            elif not line.startswith("#"):
                lines.append(line)
    lines.append("echo '@@end'")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=DEBUG_BINARY)
    args = parser.parse_args()
    binary = os.path.abspath(args.binary)

    store = http.server.ThreadingHTTPServer(("127.0.0.1", 0), StoreStandIn)
    threading.Thread(target=store.serve_forever, daemon=True).start()
    folder = tempfile.mkdtemp(prefix="rc-readme-")
    os.chmod(folder, 0o755)  # the postgres user must reach the cluster inside it when this runs as root
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith("RC_")}
    server = subprocess.Popen(
        [binary, "serve", "--port", str(port), "--data-dir", ".remote-config", "--log-level", "error",
         "--store-lookup-url", f"http://127.0.0.1:{store.server_port}/lookup"],
        cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
    passed, failed = 0, 0
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            line = server.stdout.readline()
            if "listening on http://" in line or (not line and server.poll() is not None):
                break
        threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
        blocks = [b for b in sh_blocks(open(README, encoding="utf-8").read()) if "scripts/serve" not in b]
        comments = [[line for line in block.splitlines() if line.startswith("# {")] for block in blocks]
        started = time.time()
        run = subprocess.run(["bash", "-c", script_for(blocks, f"http://127.0.0.1:{port}", binary)],
                             cwd=folder, env=env, capture_output=True, text=True, timeout=120)
        output = run.stdout
        reached = [int(m) for m in re.findall(r"^@@block (\d+)$", output, flags=re.M)]
        for index, block in enumerate(blocks):
            first = block.strip().splitlines()[0]
            name = f"block {index + 1} of {len(blocks)} ({first[:60]})"
            ok = index in reached and (index < reached[-1] or "@@end" in output)
            if not ok:
                failed += 1
                print(f"FAIL {name}: exit {run.returncode}\n{output[-3000:]}\n{run.stderr[-3000:]}")
                break
            section = output.split(f"@@block {index}\n", 1)[1].split("@@block", 1)[0]
            problems = []
            start = 0
            for number, comment in enumerate(comments[index]):
                marker = f"@@answer {index}.{number}"
                answer = section[start:section.index(marker)]
                start = section.index(marker) + len(marker)
                compact = re.sub(r"\s+", "", answer)
                for key, value in expected_pairs(comment):
                    if f'"{key}":' + re.sub(r"\s+", "", value) not in compact:
                        problems.append(f'the answer has no "{key}":{value}: {answer.strip()[:600]}')
            if problems:
                failed += 1
                print(f"FAIL {name}:\n  " + "\n  ".join(problems))
            else:
                passed += 1
                print(f"ok   {name}")
        # What the last block promised: the defaults file, in the folder -o named.
        plist = os.path.join(folder, "App", "RemoteConfigDefaults.plist")
        if "@@end" in output and os.path.exists(plist) and "<key>min_supported_version</key>" in open(plist).read():
            passed += 1
            print("ok   the defaults file is in App/RemoteConfigDefaults.plist")
        else:
            failed += 1
            print("FAIL App/RemoteConfigDefaults.plist is missing or lacks min_supported_version")
        print(f"README blocks ran in {time.time() - started:.1f} s")
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        store.shutdown()
        shutil.rmtree(folder, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
