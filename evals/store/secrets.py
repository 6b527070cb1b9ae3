"""The one secret scrubber: what citeval writes to disk or puts in a message holds no secret.

Three kinds of secret are replaced by one marker, REDACTED ("***"):

- known values: an API key, an Authorization header (`scrub(text, secrets)`);
- URL credentials (`https://user:pw@host`) and the values of secret-looking query parameters
  (`?api_key=…`, `&token=…`: a name holding key, token, secret, passw, auth or sig), with
  `urls=True`;
- the values of secret-looking environment variables (`environment_secrets()`), for a file
  that leaves the machine (a run bundle).

A backend SPEC is a URL that is parsed again on `--resume`: `scrub_spec` rewrites its query
URL-encoded (the marker then reads %2A%2A%2A), and `is_scrubbed` recognises either form, so a
resumed run asks for the real SPEC instead of calling a URL with the marker in it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

REDACTED = "***"
_REDACTED_IN_URL = quote(REDACTED, safe="")  # "%2A%2A%2A"
MIN_ENVIRONMENT_SECRET = 8  # shorter environment values ("1", "true") are not secrets and would wreck text

_SECRET_PARAMETER = r"key|token|secret|passw|auth|sig"
_SECRET_PARAMETER_NAME = re.compile(_SECRET_PARAMETER, re.IGNORECASE)
_SECRET_VARIABLE = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|CREDENTIAL", re.IGNORECASE)
_URL_USERINFO = re.compile(r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<userinfo>[^/\s\"'@]+)@")
_SECRET_QUERY = re.compile(
    rf"(?P<name>[?&][^=&#\s\"'?/]*(?:{_SECRET_PARAMETER})[^=&#\s\"'?/]*=)(?P<value>[^&#\s\"']+)",
    re.IGNORECASE,
)


def secret_parameter(name: str) -> bool:
    """Whether a URL query parameter's name looks like it carries a secret."""
    return _SECRET_PARAMETER_NAME.search(name) is not None


def environment_secrets() -> list[str]:
    """The values of secret-looking environment variables (…KEY, …TOKEN, …PASSWORD …), longest first."""
    values = {v for k, v in os.environ.items() if _SECRET_VARIABLE.search(k) and len(v) >= MIN_ENVIRONMENT_SECRET}
    return sorted(values, key=len, reverse=True)


def scrub_counted(
    text: str, secrets: Iterable[str | None] = (), *, urls: bool = False, min_length: int = 1
) -> tuple[str, int]:
    """text with each of `secrets` (values of at least min_length characters; longest first, so
    a header goes before the key inside it) and, with urls, URL credentials and secret query
    values replaced by REDACTED; and how many were replaced."""
    count = 0
    known = sorted({s for s in secrets if s and len(s) >= min_length}, key=len, reverse=True)
    for secret in known:
        count += text.count(secret)
        text = text.replace(secret, REDACTED)
    if urls:
        text, n = _URL_USERINFO.subn(lambda m: f"{m['scheme']}{REDACTED}@", text)
        count += n
        text, n = _SECRET_QUERY.subn(lambda m: f"{m['name']}{REDACTED}", text)
        count += n
    return text, count


def scrub(text: str, secrets: Iterable[str | None] = (), *, urls: bool = False, min_length: int = 1) -> str:
    """text without any of `secrets` (and, with urls, URL secrets); see scrub_counted."""
    return scrub_counted(text, secrets, urls=urls, min_length=min_length)[0]


def scrub_spec(spec: str) -> str:
    """A backend SPEC as it may be written to a run folder: the URL in it without userinfo and
    with secret-looking query values replaced (the query re-encoded, so it stays a URL)."""
    match = re.search(r"https?://\S+", spec)
    if not match:
        return spec
    try:
        parts = urlsplit(match.group(0))
        port = parts.port
    except ValueError:  # a port out of range, a broken IPv6 host: no URL to rebuild, still scrubbed
        return scrub(spec, urls=True)
    netloc = parts.hostname or ""
    if port:
        netloc += f":{port}"
    if parts.username or parts.password:
        netloc = f"{REDACTED}@" + netloc
    query = urlencode([(k, REDACTED if secret_parameter(k) else v) for k, v in parse_qsl(parts.query)])
    clean = urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
    return spec[: match.start()] + clean + spec[match.end() :]


def is_scrubbed(text: str) -> bool:
    """Whether text had a secret replaced (the marker, plain or URL-encoded, is in it)."""
    return REDACTED in text or _REDACTED_IN_URL in text
