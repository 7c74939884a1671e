"""What the drills share: HTTP calls and starting a server with an embedded PostgreSQL."""
import json, os, subprocess, sys, tempfile, threading, time, urllib.error, urllib.request

TOKEN = "rc_admin_drillToken00000000000000000000000"

# The server's debug build (server/.build/debug), found from this folder so the drills run from any directory.
DEBUG_BINARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".build", "debug", "remote-config")


def call(method, url, body=None, headers=None, timeout=5):
    """One request; returns (status, headers, body bytes); status 0 when the server did not answer."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()
    except Exception as error:  # connection refused, timeout
        return 0, {}, str(error).encode()


def start_server(binary, prefix, extra_args=()):
    """Starts `remote-config serve` on a free port with an embedded PostgreSQL in a new data dir (`extra_args`
    are more flags of serve, such as `--store-lookup-url`).

    Returns (process, base URL, data dir); the server's output is drained in the background."""
    data_dir = tempfile.mkdtemp(prefix=prefix)
    os.chmod(data_dir, 0o755)  # the postgres user must reach the cluster inside it
    env = dict(os.environ, RC_ADMIN_TOKEN=TOKEN, RC_LOG_LEVEL="error")
    server = subprocess.Popen([binary, "serve", "--port", "0", "--data-dir", data_dir, *extra_args],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, text=True)
    port = None
    deadline = time.time() + 120
    while time.time() < deadline and port is None:
        line = server.stdout.readline()
        if not line and server.poll() is not None:
            break
        if "listening on http://" in line:
            port = int(line.rsplit(":", 1)[1])
    if port is None:
        server.kill()
        sys.exit("the server did not start")
    threading.Thread(target=lambda: [None for _ in server.stdout], daemon=True).start()
    return server, f"http://127.0.0.1:{port}", data_dir
