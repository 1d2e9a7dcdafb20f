"""A small client of NetBox's REST API: paged reads, bulk creates and bulk updates, and errors in words.

The standard library's HTTP client is enough for the few calls a push and a read make (JSON over HTTP with a
token), so no client library is added. Every call is bounded: a timeout per request, pages of
:data:`PAGE` objects, bulk writes of :data:`CHUNK`, and at most :data:`MAX_OBJECTS` objects read of a type.

A token is sent as NetBox 4.5 and later take a v2 token (``Bearer nbt_...``) and as earlier releases take
a v1 token (``Token <key>``): a token that starts ``nbt_`` is a v2 one.
"""
from __future__ import annotations

import json
import threading
import urllib.error
import urllib.parse
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Hashable, Iterable, Sequence

#: objects read per page (NetBox's MAX_PAGE_SIZE defaults to 1,000), and written per bulk request: NetBox creates
#: about seven cables a second on a core (it traces each one's path), so a request of 100 ends well inside the
#: timeout even on a busy server
PAGE = 1000
CHUNK = 100
#: most objects read of one type in one call: a 100,000-GPU site has about 600,000 interfaces
MAX_OBJECTS = 2_000_000
TIMEOUT_S = 120.0


class NetBoxAPIError(Exception):
    """A NetBox that cannot be reached, refuses the token, or refuses an object; the message says which.
    ``status``: NetBox's HTTP status, None where it did not answer."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


def _auth(token: str) -> str:
    token = token.strip()
    if token.lower().startswith(("bearer ", "token ")):
        return token
    return f"Bearer {token}" if token.startswith("nbt_") else f"Token {token}"


class NetBoxAPI:
    """NetBox at ``url`` (``http://netbox.example:8000``), with ``token``; ``opener`` replaces the HTTP call in
    tests (a function of a :class:`urllib.request.Request` and a timeout returning status and body). ``workers``:
    bulk requests a :meth:`create` of ``parallel`` objects keeps in flight at once (NetBox is served by several
    worker processes; one request keeps one of them busy)."""

    def __init__(self, url: str, token: str, *, timeout: float = TIMEOUT_S, workers: int = 1,
                 opener: Callable[[urllib.request.Request, float], tuple[int, bytes]] | None = None):
        parsed = urllib.parse.urlparse(url.strip())
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise NetBoxAPIError(f"{url[:80]!r} is not a NetBox address such as https://netbox.example.com")
        if not token or not token.strip():
            raise NetBoxAPIError("no API token: create one in NetBox (your user ▸ API tokens) and give it")
        self.base = url.strip().rstrip("/")
        self.timeout = timeout
        self._headers = {"Authorization": _auth(token), "Accept": "application/json",
                         "Content-Type": "application/json"}
        self._opener = opener or _urlopen
        self.workers = max(1, min(int(workers), 16))
        #: requests made, by method: what a push cost
        self.calls: dict[str, int] = {}
        self._count = threading.Lock()

    # -- the HTTP call -----------------------------------------------------------------------------
    def request(self, method: str, path: str, body: object = None, query: dict | None = None) -> object:
        url = path if path.startswith("http") else f"{self.base}/api/{path.strip('/')}/"
        if query:
            url += ("&" if "?" in url else "?") + urllib.parse.urlencode(query, doseq=True)
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(url, data=data, method=method, headers=self._headers)
        with self._count:
            self.calls[method] = self.calls.get(method, 0) + 1
        try:
            status, raw = self._opener(req, self.timeout)
        except urllib.error.HTTPError as exc:
            status, raw = exc.code, exc.read()
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise NetBoxAPIError(f"NetBox at {self.base} cannot be reached ({reason})") from None
        if status in (401, 403):
            raise NetBoxAPIError(f"NetBox at {self.base} refuses the token (HTTP {status}: {_detail(raw)})", status)
        if status >= 400:
            raise NetBoxAPIError(f"NetBox refused {method} {path}: HTTP {status}: {_detail(raw)}", status)
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            raise NetBoxAPIError(f"{self.base} did not answer {path} with JSON: is it a NetBox?") from None

    # -- what a push needs -------------------------------------------------------------------------
    def status(self) -> dict:
        """NetBox's ``/api/status/``: its version, which the caller checks."""
        doc = self.request("GET", "status")
        if not isinstance(doc, dict) or "netbox-version" not in doc:
            raise NetBoxAPIError(f"{self.base}/api/status/ does not look like NetBox's")
        return doc

    def all(self, endpoint: str, **filters) -> list[dict]:
        """Every object of ``endpoint`` that ``filters`` match, all pages."""
        out: list[dict] = []
        page = self.request("GET", endpoint, query={"limit": PAGE, **filters})
        while True:
            if not isinstance(page, dict) or "results" not in page:
                raise NetBoxAPIError(f"NetBox answered {endpoint} with no list of results")
            out += page["results"]
            if len(out) > MAX_OBJECTS:
                raise NetBoxAPIError(f"{endpoint}: more than {MAX_OBJECTS:,} objects")
            if not page.get("next"):
                return out
            page = self.request("GET", page["next"])

    def create(self, endpoint: str, objects: Iterable[dict], parallel: bool = False,
               groups: Sequence[Hashable] | None = None) -> list[dict]:
        """POST ``objects`` in bulk requests; returns the created objects in the order given. :attr:`workers`
        requests may run at once where the objects allow it: ``parallel``, each object touches no row another's
        does (a cable between two interfaces no other cable has); ``groups``, a key per object, objects of one
        key may touch common rows (interfaces of one device update its count), so a key's objects all go in one
        request, or one after another, and requests in flight hold disjoint keys."""
        objects = list(objects)
        if groups is None and parallel:
            groups = range(len(objects))
        if groups is not None and len(groups) != len(objects):
            raise ValueError(f"{len(groups)} group keys for {len(objects)} objects")
        if groups is None or self.workers == 1 or len(objects) <= CHUNK:
            return self._bulk("POST", endpoint, objects)
        members: dict[Hashable, list[int]] = {}
        for i, key in enumerate(groups):
            members.setdefault(key, []).append(i)
        parts: list[list[int]] = [[]]
        for indices in members.values():  # whole groups per request; a group larger than a request goes alone
            if parts[-1] and len(parts[-1]) + len(indices) > CHUNK:
                parts.append([])
            parts[-1].extend(indices)

        def one(part: list[int]) -> list[dict]:
            try:
                # a part of more than CHUNK objects (one large group) is sent in requests one after another
                return self._bulk("POST", endpoint, [objects[i] for i in part])
            except NetBoxAPIError as exc:
                raise NetBoxAPIError(f"{exc} ({len(part):,} of {len(objects):,} objects, from object "
                                     f"{part[0] + 1:,}, sent beside others: NetBox may hold some of the rest; run "
                                     "the push again, it carries on from what NetBox holds)", exc.status) from None

        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            done = list(pool.map(one, parts))
        out: list[dict] = [{}] * len(objects)
        for part, made in zip(parts, done):
            for i, obj in zip(part, made):
                out[i] = obj
        return out

    def update(self, endpoint: str, objects: Iterable[dict]) -> list[dict]:
        """PATCH a list of ``{"id": ..., field: value}``: only the fields given change."""
        return self._bulk("PATCH", endpoint, list(objects))

    def _bulk(self, method: str, endpoint: str, objects: list[dict]) -> list[dict]:
        out: list[dict] = []
        for start in range(0, len(objects), CHUNK):
            chunk = objects[start:start + CHUNK]
            try:
                done = self.request(method, endpoint, body=chunk)
            except NetBoxAPIError as exc:
                if exc.status != 400:
                    # no answer, or a server error: NetBox may have written the request's objects all the same,
                    # so sending them again one by one would make them twice; a push run again finds them
                    raise NetBoxAPIError(f"{exc}; {start:,} of {len(objects):,} {endpoint} were written before it: "
                                         "run the push again, it carries on from what NetBox holds",
                                         exc.status) from None
                if len(chunk) == 1:
                    raise NetBoxAPIError(f"{exc} (object: {_brief(chunk[0])})", exc.status) from None
                # one refused object refuses its whole request: find it, to name it
                for one in chunk:
                    out += self._bulk(method, endpoint, [one])
                continue
            out += done if isinstance(done, list) else [done]
        return out


def _urlopen(req: urllib.request.Request, timeout: float) -> tuple[int, bytes]:
    with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 (an http(s) URL, checked above)
        return resp.status, resp.read()


def _detail(raw: bytes) -> str:
    """NetBox's error body in one line: its ``detail``, or the fields it refused and why."""
    try:
        doc = json.loads(raw)
    except ValueError:
        return raw[:200].decode("utf-8", "replace").strip() or "no reason given"
    if isinstance(doc, list):
        doc = next((d for d in doc if d), {})
    if isinstance(doc, dict):
        if "detail" in doc:
            return str(doc["detail"])[:300]
        return "; ".join(f"{k}: {' '.join(map(str, v)) if isinstance(v, list) else v}" for k, v in doc.items())[:300]
    return str(doc)[:300]


def _brief(obj: dict) -> str:
    keys = ("name", "slug", "model", "label")
    shown = {k: obj[k] for k in keys if k in obj} or {k: obj[k] for k in list(obj)[:3]}
    return json.dumps(shown, ensure_ascii=False)[:160]
