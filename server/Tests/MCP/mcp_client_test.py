#!/usr/bin/env python3
"""A real MCP client against the built server: the official Model Context Protocol Python SDK (`mcp` from PyPI),
over both transports, Streamable HTTP (`/mcp`, `mcp.client.streamable_http`) and stdio (`remote-config mcp`,
`mcp.client.stdio`).

    server/Tests/MCP/mcp_client_test.py [--binary PATH] [-k NAME]

Starts `remote-config serve` (default: server/.build/debug/remote-config) on a free loopback port with an
embedded PostgreSQL, publishes two versions of a force-update template, sends real fetches with a client key
(counted, flushed every second), then over each transport lists the tools, calls every one and checks the
answers, and the refusals: a viewer proposing, a key of another project, no key (401 over HTTP); and that
`remote-config mcp` answers every request it read when its standard input ends. Ends with
"N passed, M failed" (exit 1 on any failure). scripts/test runs it after installing the SDK
(scripts/ensure-mcp-client.sh).
"""
import argparse, asyncio, contextlib, json, os, shutil, sys, tempfile, time, traceback
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "Benchmarks", "drills"))
from common import DEBUG_BINARY, TOKEN, call, start_server  # noqa: E402

import httpx2  # noqa: E402  (the SDK's HTTP client)
from mcp import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

ADMIN = {"Authorization": f"Bearer {TOKEN}"}
TOOLS = ["list_projects", "get_template", "list_versions", "diff_versions", "validate_template", "preview_fetch",
         "fleet_versions", "parameter_shares", "impact", "recommend_minimum_version", "list_change_requests",
         "propose_change", "get_audit_log"]


def template(minimum="2.0.0", current="2.3.0"):
    return {
        "conditions": [{"name": "ios", "expression": "device.os == 'ios'"},
                       {"name": "too_old", "expression": f"app.version.<(['{minimum}'])"}],
        "parameters": {
            "require_force_update": {"defaultValue": {"value": "false"},
                                     "conditionalValues": {"too_old": {"value": "true"}}, "valueType": "BOOLEAN"},
            "min_supported_version": {"defaultValue": {"value": minimum}, "valueType": "STRING"},
            "current_version": {"defaultValue": {"value": current}, "valueType": "STRING"},
        },
    }


class Fleet:
    """A running server with shop-app (two versions, 45 counted instances), other-app, and keys of each role."""

    def __init__(self, base, binary):
        self.base, self.binary = base, binary
        for project in ("shop-app", "other-app"):
            status, _, body = call("POST", f"{base}/v1/projects", {"projectId": project}, ADMIN)
            assert status == 201, body
        for current in ("2.2.0", "2.3.0"):
            status, _, body = call("PUT", f"{base}/v1/projects/shop-app/remoteConfig", template(current=current),
                                   dict(ADMIN, **{"If-Match": "*"}))
            assert status == 200, body
        self.keys = {name: self.key(role, project) for name, role, project in [
            ("viewer", "viewer", "shop-app"), ("editor", "editor", "shop-app"), ("other", "editor", "other-app"),
            ("client", "client", "shop-app")]}
        # Real fetches with a client key: 30 iOS instances on 2.1.0, 10 on 2.3.0, 5 Android on 2.2.0.
        fleet = [("old", 30, "IOS", "2.1.0"), ("new", 10, "IOS", "2.3.0"), ("droid", 5, "ANDROID", "2.2.0")]
        for prefix, count, platform, version in fleet:
            for index in range(count):
                status, _, body = call(
                    "POST", f"{base}/v1/projects/shop-app/remoteConfig:fetch",
                    {"appInstanceId": f"{prefix}-{index}", "platform": platform, "appVersion": version},
                    {"X-API-Key": self.keys["client"]})
                assert status == 200, body
        deadline = time.time() + 30
        while True:
            status, _, body = call("GET", f"{base}/v1/projects/shop-app/insights/versions", None, ADMIN)
            platforms = json.loads(body).get("platforms", []) if status == 200 else []
            if sum(p["activeInstances"] for p in platforms) >= 45:
                break
            assert time.time() < deadline, f"the fetches were not counted: {body}"
            time.sleep(0.5)

    def key(self, role, project):
        status, _, body = call("POST", f"{self.base}/v1/apiKeys",
                               {"displayName": f"mcp {role} {project}", "role": role, "project": project}, ADMIN)
        assert status == 201, body
        return json.loads(body)["key"]


@contextlib.asynccontextmanager
async def http_session(fleet, token, seen=None):
    """An initialized ClientSession over Streamable HTTP, the key in Authorization (as the SDK's docs configure);
    `seen` collects the status and WWW-Authenticate of every answer the SDK's HTTP client got."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}

    async def record(response):
        if seen is not None:
            seen.append((response.status_code, response.headers.get("WWW-Authenticate")))

    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=60),
                                  event_hooks={"response": [record]}) as client:
        async with streamable_http_client(f"{fleet.base}/mcp", http_client=client) as (read, write):
            async with ClientSession(read, write) as session:
                initialized = await session.initialize()
                assert initialized.protocol_version == "2025-11-25", initialized.protocol_version
                assert initialized.server_info.name == "remote-config", initialized.server_info
                yield session


@contextlib.asynccontextmanager
async def stdio_session(fleet, token):
    """An initialized ClientSession with `remote-config mcp` as the desktop assistant starts it."""
    home = tempfile.mkdtemp(prefix="rc-mcp-home-")  # no saved sign-in
    args = ["mcp", "--server", fleet.base] + (["--token", token] if token else [])
    parameters = StdioServerParameters(command=fleet.binary, args=args, env={"HOME": home, "RC_TOKEN": ""})
    try:
        async with stdio_client(parameters) as (read, write):
            async with ClientSession(read, write) as session:
                initialized = await session.initialize()
                assert initialized.protocol_version == "2025-11-25", initialized.protocol_version
                yield session
    finally:
        shutil.rmtree(home, ignore_errors=True)


def ok(result):
    """A tool result that is not an error: its structured content."""
    assert not result.is_error, result.content[0].text if result.content else result
    assert result.structured_content is not None, result
    # The same JSON as text, for clients that read only text.
    assert json.loads(result.content[0].text) == result.structured_content, result.content[0].text[:200]
    return result.structured_content


def refused(result):
    """A tool error: its text (the API's status and message)."""
    assert result.is_error, result.structured_content
    return result.content[0].text


async def check_tools(session, fleet):
    listed = await session.list_tools()
    assert [tool.name for tool in listed.tools] == TOOLS, [tool.name for tool in listed.tools]
    for tool in listed.tools:
        assert tool.input_schema["type"] == "object" and tool.input_schema.get("additionalProperties") is False, tool
        assert "never" in tool.description, tool.description
        assert tool.annotations.read_only_hint is (tool.name != "propose_change"), tool
    for word in ("publish", "approve", "rollback", "delete", "secret", "key"):
        assert not any(word in tool.name for tool in listed.tools), word


async def check_reads(session, fleet):
    projects = ok(await session.call_tool("list_projects", {}))
    assert {p["projectId"] for p in projects["projects"]} == {"shop-app", "other-app"}, projects
    published = ok(await session.call_tool("get_template", {"project": "shop-app"}))
    assert published["parameters"]["current_version"]["defaultValue"]["value"] == "2.3.0", published
    first = ok(await session.call_tool("get_template", {"project": "shop-app", "version": "1"}))
    assert first["parameters"]["current_version"]["defaultValue"]["value"] == "2.2.0", first
    versions = ok(await session.call_tool("list_versions", {"project": "shop-app"}))
    assert [v["versionNumber"] for v in versions["versions"]] == ["2", "1"], versions
    diff = ok(await session.call_tool("diff_versions", {"project": "shop-app", "from": "1", "to": "2"}))
    assert "current_version" in json.dumps(diff), diff
    # Against a template that is stored nowhere: what raising the minimum would change from version 2.
    against = ok(await session.call_tool("diff_versions", {"project": "shop-app", "from": "2",
                                                           "template": template(minimum="2.3.0")}))
    assert against["from"] == "2" and against["to"] == "template", against
    assert "min_supported_version" in json.dumps(against) and "2.3.0" in json.dumps(against), against
    preview = ok(await session.call_tool("preview_fetch", {"project": "shop-app", "context": {
        "appInstanceId": "preview-1", "platform": "IOS", "appVersion": "1.9.0"}}))
    assert preview["entries"]["require_force_update"] == "true", preview
    assert preview["parameters"]["require_force_update"]["condition"] == "too_old", preview
    assert preview["conditions"] == {"ios": True, "too_old": True}, preview

    fleet_ios = ok(await session.call_tool("fleet_versions", {"project": "shop-app", "platform": "IOS"}))
    ios = fleet_ios["platforms"][0]
    # Distinct instances are estimated (HyperLogLog): within one of the truth at these counts.
    assert ios["platform"] == "IOS" and abs(ios["activeInstances"] - 40) <= 1, fleet_ios
    assert [v["version"] for v in ios["versions"]] == ["2.3.0", "2.1.0"], ios
    assert [abs(v["activeInstances"] - n) <= 1 for v, n in zip(ios["versions"], (10, 30))] == [True, True], ios
    everyone = ok(await session.call_tool("fleet_versions", {"project": "shop-app"}))
    assert {p["platform"] for p in everyone["platforms"]} == {"IOS", "ANDROID"}, everyone
    shares = ok(await session.call_tool("parameter_shares", {"project": "shop-app"}))
    assert shares["answers"] >= 45, shares
    assert shares["parameters"]["current_version"]["sources"][0]["source"] == "DEFAULT", shares

    raised = template(minimum="2.3.0")
    impact = ok(await session.call_tool("impact", {"project": "shop-app", "template": raised}))
    assert impact["sample"]["instances"] == 45, impact
    assert impact["forceUpdate"]["newlyRequired"] > 0 and impact["forceUpdate"]["share"] > 0.6, impact
    forced = next(c for c in impact["changes"] if c["parameter"] == "require_force_update")
    assert forced["from"] == "false" and forced["to"] == "true" and forced["instances"] > 0, forced
    assert {v["version"] for v in forced["byVersion"]} == {"2.1.0", "2.2.0"}, forced

    minimum = ok(await session.call_tool("recommend_minimum_version",
                                         {"project": "shop-app", "platform": "IOS", "maxBlockedShare": 0.5}))
    assert minimum["recommended"]["version"] == "2.1.0", minimum
    assert minimum["current"]["value"] == "2.0.0", minimum
    looser = ok(await session.call_tool("recommend_minimum_version",
                                        {"project": "shop-app", "platform": "IOS", "maxBlockedShare": 0.8}))
    assert looser["recommended"]["version"] == "2.3.0", looser
    assert abs(looser["recommended"]["blockedShare"] - 0.75) < 0.03, looser

    valid = ok(await session.call_tool("validate_template", {"project": "shop-app", "template": raised}))
    assert valid["parameters"]["min_supported_version"]["defaultValue"]["value"] == "2.3.0", valid
    wrong = refused(await session.call_tool("validate_template", {"project": "shop-app", "template": {
        "parameters": {"n": {"defaultValue": {"value": "many"}, "valueType": "NUMBER"}}}}))
    assert wrong.startswith("INVALID_ARGUMENT: "), wrong
    status, _, body = call("GET", f"{fleet.base}/v1/projects/shop-app/remoteConfig:listVersions", None, ADMIN)
    assert len(json.loads(body)["versions"]) == 2, "validating published nothing"
    unknown = refused(await session.call_tool("get_template", {"project": "shop-app", "versoin": "1"}))
    assert unknown.startswith("INVALID_ARGUMENT: versoin is not an argument"), unknown

    resources = await session.list_resources()
    uris = {str(resource.uri) for resource in resources.resources}
    assert "remoteconfig://projects/shop-app/template" in uris, uris
    assert "remoteconfig://projects/shop-app/insights/versions" in uris, uris
    templates = await session.list_resource_templates()
    assert {t.uri_template for t in templates.resource_templates} == {
        "remoteconfig://projects/{p}/template", "remoteconfig://projects/{p}/insights/versions"}, templates
    read = await session.read_resource("remoteconfig://projects/shop-app/template")
    assert json.loads(read.contents[0].text)["parameters"]["current_version"]["defaultValue"]["value"] == "2.3.0"
    read = await session.read_resource("remoteconfig://projects/shop-app/insights/versions")
    assert json.loads(read.contents[0].text)["enabled"] is True


async def check_proposal(session, fleet, label):
    """The editor proposes raising the minimum: a change request with its diff and impact, nothing published."""
    before = ok(await session.call_tool("list_change_requests", {"project": "shop-app", "state": "OPEN"}))
    proposed = ok(await session.call_tool("propose_change", {
        "project": "shop-app", "description": f"Raise the minimum to 2.3 ({label})",
        "edits": [{"set": {"parameter": "min_supported_version", "value": "2.3.0"}}]}))
    request = proposed["changeRequest"]
    assert request["state"] == "OPEN" and request["baseVersionNumber"] == "2", request
    assert request["template"]["parameters"]["min_supported_version"]["defaultValue"]["value"] == "2.3.0"
    assert "min_supported_version" in json.dumps(request["diff"]), request["diff"]
    change = next(c for c in proposed["impact"]["changes"] if c["parameter"] == "min_supported_version")
    assert change["from"] == "2.0.0" and change["to"] == "2.3.0" and change["instances"] == 45, change
    after = ok(await session.call_tool("list_change_requests", {"project": "shop-app", "state": "OPEN"}))
    assert len(after["changeRequests"]) == len(before["changeRequests"]) + 1, after
    log = ok(await session.call_tool("get_audit_log", {"project": "shop-app", "pageSize": 5}))
    created = next(e for e in log["events"] if e["action"] == "changeRequest.create")
    assert created["detail"]["via"] == "mcp" and created["actor"]["displayName"] == "mcp editor shop-app", created
    status, _, body = call("GET", f"{fleet.base}/v1/projects/shop-app/remoteConfig:listVersions", None, ADMIN)
    assert len(json.loads(body)["versions"]) == 2, "a proposal publishes nothing"


async def check_refusals(open_session, fleet):
    edit = [{"set": {"parameter": "min_supported_version", "value": "2.3.0"}}]
    async with open_session(fleet, fleet.keys["viewer"]) as viewer:
        ok(await viewer.call_tool("get_template", {"project": "shop-app"}))
        text = refused(await viewer.call_tool("propose_change",
                                              {"project": "shop-app", "description": "Raise", "edits": edit}))
        assert text == "PERMISSION_DENIED: this route needs the editor role; the key has viewer on project shop-app", text
        projects = ok(await viewer.call_tool("list_projects", {}))
        assert [p["projectId"] for p in projects["projects"]] == ["shop-app"], projects
    async with open_session(fleet, fleet.keys["other"]) as other:
        for name, arguments in [("get_template", {"project": "shop-app"}),
                                ("fleet_versions", {"project": "shop-app"}),
                                ("propose_change", {"project": "shop-app", "description": "x", "edits": edit})]:
            text = refused(await other.call_tool(name, arguments))
            assert text == "PERMISSION_DENIED: the key belongs to another project", (name, text)


async def check_http_without_key(fleet):
    status, headers, body = call("POST", f"{fleet.base}/mcp", {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                                               "params": {}}, {"Accept": "application/json, text/event-stream"})
    assert status == 401 and headers.get("WWW-Authenticate") == "Bearer", (status, headers, body)
    seen = []
    try:
        async with http_session(fleet, None, seen):
            raise AssertionError("a session opened without a key")
    except AssertionError:
        raise
    except BaseException as error:  # the SDK fails initialize (inside its task groups' exception groups)
        assert "error response" in repr(error), repr(error)
    assert seen == [(401, "Bearer")], seen


async def check_stdio_without_key(fleet):
    async with stdio_session(fleet, None) as session:
        text = refused(await session.call_tool("list_projects", {}))
        assert text.startswith("UNAUTHENTICATED: "), text


async def check_stdio_answers_before_eof(fleet):
    """A script that pipes its requests in and closes standard input still gets every answer."""
    import subprocess
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "pipe", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "get_template", "arguments": {"project": "shop-app"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "fleet_versions", "arguments": {"project": "shop-app"}}},
    ]
    home = tempfile.mkdtemp(prefix="rc-mcp-home-")
    try:
        done = subprocess.run([fleet.binary, "mcp", "--server", fleet.base, "--token", TOKEN],
                              input="".join(json.dumps(m) + "\n" for m in messages), capture_output=True, text=True,
                              timeout=60, env=dict(os.environ, HOME=home))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    assert done.returncode == 0 and done.stderr == "", (done.returncode, done.stderr)
    answers = {answer["id"]: answer for answer in map(json.loads, done.stdout.splitlines())}
    assert sorted(answers) == [1, 2, 3], done.stdout[:500]
    assert answers[2]["result"]["structuredContent"]["parameters"]["current_version"]["defaultValue"]["value"] == "2.3.0"
    assert answers[3]["result"]["isError"] is False, answers[3]


async def over(open_session, fleet, label):
    async with open_session(fleet, TOKEN) as admin:
        await check_tools(admin, fleet)
        await check_reads(admin, fleet)
    async with open_session(fleet, fleet.keys["editor"]) as editor:
        await check_proposal(editor, fleet, label)
    await check_refusals(open_session, fleet)


TESTS = [
    ("http_tools_reads_proposal_refusals", lambda fleet: over(http_session, fleet, "http")),
    ("http_without_key", check_http_without_key),
    ("stdio_tools_reads_proposal_refusals", lambda fleet: over(stdio_session, fleet, "stdio")),
    ("stdio_without_key", check_stdio_without_key),
    ("stdio_answers_before_eof", check_stdio_answers_before_eof),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=DEBUG_BINARY)
    parser.add_argument("-k", dest="name", help="run only the tests whose name contains this")
    arguments = parser.parse_args()
    binary = os.path.abspath(arguments.binary)
    server, base, data_dir = start_server(binary, "rc-mcp-", ("--insights-flush-interval", "1"))
    passed, failed = 0, 0
    try:
        fleet = Fleet(base, binary)
        for name, test in TESTS:
            if arguments.name and arguments.name not in name:
                continue
            try:
                asyncio.run(asyncio.wait_for(test(fleet), timeout=120))
                passed += 1
                print(f"✔ {name}")
            except BaseException:
                failed += 1
                print(f"✘ {name}")
                traceback.print_exc()
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except Exception:
            server.kill()
        shutil.rmtree(data_dir, ignore_errors=True)
    print(f"MCP client: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
