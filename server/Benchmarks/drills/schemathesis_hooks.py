"""schemathesis hooks of server/Benchmarks/drills/schemathesis.sh (loaded through schemathesis.toml)."""
import re

from hypothesis import strategies as st

import schemathesis

# `format: iana-time-zone` (fetch's timeZone): names every tz database has had for years, so that the
# server's copy (ICU, through Foundation) knows them all. Valid data must be a real zone name: a pattern
# cannot say which names exist.
TIME_ZONES = [
    "UTC", "Etc/UTC", "Etc/GMT+5", "Asia/Tokyo", "Asia/Kolkata", "Asia/Kathmandu", "Europe/London",
    "Europe/Berlin", "Europe/Paris", "America/New_York", "America/Los_Angeles", "America/Sao_Paulo",
    "America/Argentina/Buenos_Aires", "America/Indiana/Indianapolis", "Africa/Lagos", "Africa/Johannesburg",
    "Australia/Sydney", "Australia/Adelaide", "Pacific/Auckland", "Pacific/Chatham", "Pacific/Honolulu",
]

schemathesis.openapi.format("iana-time-zone", st.sampled_from(TIME_ZONES))

# Control characters other than HTAB may not appear in a header field (RFC 9110, section 5.5): a request
# carrying one is not HTTP, and the server's HTTP/1 parser (swift-nio) drops it with a bare 400 before any
# route runs. `generation.exclude-header-characters` keeps most generated headers clean, but schemathesis
# 4.32.5 does not apply it where it negates the header object as a whole (e.g. dropping the required
# X-API-Key draws the other headers afresh), so such cases are dropped here.
NOT_IN_A_HEADER = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


@schemathesis.hook
def filter_case(context, case):
    headers = case.headers or {}
    return not any(NOT_IN_A_HEADER.search(f"{name}{value}") for name, value in headers.items())
