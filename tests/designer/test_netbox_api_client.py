"""The REST client a NetBox push talks through: its token header, paging, bulk chunks, and errors in words (the
push itself is tested against a real NetBox in tests/netbox)."""
from __future__ import annotations

import json
import urllib.error

import pytest

from designer.netbox_api import CHUNK, NetBoxAPI, NetBoxAPIError


class Recorder:
    """Answers the client's requests from a function of (method, url, body); keeps what was asked."""

    def __init__(self, answer):
        self.answer, self.asked = answer, []

    def __call__(self, req, timeout):
        body = json.loads(req.data) if req.data else None
        self.asked.append((req.get_method(), req.full_url, body, dict(req.header_items())))
        status, doc = self.answer(req.get_method(), req.full_url, body)
        return status, json.dumps(doc).encode()


def test_a_v2_token_is_a_bearer_and_a_v1_token_a_token():
    seen = Recorder(lambda m, u, b: (200, {"netbox-version": "4.7.3"}))
    NetBoxAPI("http://nb.example:8000/", "nbt_abc.def", opener=seen).status()
    NetBoxAPI("http://nb.example:8000", "0123456789abcdef", opener=seen).status()
    assert [a[3]["Authorization"] for a in seen.asked] == ["Bearer nbt_abc.def", "Token 0123456789abcdef"]
    assert seen.asked[0][1] == "http://nb.example:8000/api/status/"


def test_every_page_is_read():
    pages = {"1": ({"results": [{"id": 1}, {"id": 2}], "next": "http://nb/api/dcim/racks/?limit=2&offset=2"}),
             "2": ({"results": [{"id": 3}], "next": None})}
    seen = Recorder(lambda m, u, b: (200, pages["2" if "offset=2" in u else "1"]))
    api = NetBoxAPI("http://nb", "t", opener=seen)
    assert [o["id"] for o in api.all("dcim/racks", site_id=4)] == [1, 2, 3]
    assert "site_id=4" in seen.asked[0][1] and "limit=1000" in seen.asked[0][1]


def test_bulk_writes_go_in_chunks_and_a_refused_object_is_named():
    def answer(method, url, body):
        if any(o.get("name") == "bad" for o in body):
            return 400, [{}] * (len(body) - 1) + [{"name": ["rack with this name already exists."]}]
        return 201, [{"id": i, **o} for i, o in enumerate(body)]
    seen = Recorder(answer)
    api = NetBoxAPI("http://nb", "t", opener=seen)
    made = api.create("dcim/racks", [{"name": f"r{i}"} for i in range(CHUNK + 3)])
    assert len(made) == CHUNK + 3 and [len(a[2]) for a in seen.asked] == [CHUNK, 3]
    with pytest.raises(NetBoxAPIError, match=r'HTTP 400: name: rack with this name already exists\. '
                                             r'\(object: \{"name": "bad"\}\)'):
        api.create("dcim/racks", [{"name": "ok"}, {"name": "bad"}])


@pytest.mark.parametrize("status, message", [(403, r"refuses the token \(HTTP 403: Invalid token\)"),
                                             (401, "refuses the token")])
def test_a_refused_token_says_so(status, message):
    api = NetBoxAPI("http://nb", "t", opener=Recorder(lambda m, u, b: (status, {"detail": "Invalid token"})))
    with pytest.raises(NetBoxAPIError, match=message):
        api.status()


def test_an_unreachable_or_foreign_server_and_a_bad_address_are_named():
    def down(req, timeout):
        raise urllib.error.URLError("Connection refused")
    with pytest.raises(NetBoxAPIError, match=r"NetBox at http://127.0.0.1:9 cannot be reached \(Connection refused\)"):
        NetBoxAPI("http://127.0.0.1:9", "t", opener=down).status()
    with pytest.raises(NetBoxAPIError, match="does not look like NetBox's"):
        NetBoxAPI("http://nb", "t", opener=Recorder(lambda m, u, b: (200, {"hello": 1}))).status()
    with pytest.raises(NetBoxAPIError, match="is not a NetBox address"):
        NetBoxAPI("ftp://nb", "t")
    with pytest.raises(NetBoxAPIError, match="no API token"):
        NetBoxAPI("http://nb", "  ")


@pytest.mark.parametrize("args, message", [
    (["{tmp}", "--url", "http://127.0.0.1:9"], "give a folder (DIR) or a NetBox"),
    ([], "give a folder (DIR) or a NetBox"),
    (["--url", "http://127.0.0.1:9", "--site", "s"], "--url needs --token T (or NETBOX_TOKEN) and --site SLUG"),
    (["--url", "http://127.0.0.1:9", "--token", "t"], "--url needs --token T"),
    (["{tmp}", "--site", "s"], "--token and --site go with --url"),
    (["--url", "http://127.0.0.1:9", "--token", "t", "--site", "s"], "--url: NetBox at http://127.0.0.1:9 cannot be "
                                                                     "reached"),
])
def test_from_netbox_says_what_it_needs(args, message, tmp_path, capsys, monkeypatch):
    from designer.cli.main import main

    monkeypatch.delenv("NETBOX_TOKEN", raising=False)
    argv = ["new", "from-netbox", *[a.replace("{tmp}", str(tmp_path)) for a in args], "-o", str(tmp_path / "o.json")]
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_a_server_error_or_no_answer_is_not_sent_again_one_by_one():
    """NetBox may have written a request it then failed to answer: sending its objects again one at a time would
    make them twice (a cable's terminations clash), so the push stops and says to run it again."""
    answers = iter([(201, [{"id": i} for i in range(CHUNK)]), (500, {"detail": "Server Error"})])
    seen = Recorder(lambda m, u, b: next(answers))
    api = NetBoxAPI("http://nb", "t", opener=seen)
    with pytest.raises(NetBoxAPIError) as err:
        api.create("dcim/cables", [{"label": f"W{i}"} for i in range(CHUNK + 5)])
    assert err.value.status == 500 and len(seen.asked) == 2  # no request after the failed one
    assert f"{CHUNK:,} of {CHUNK + 5:,} dcim/cables were written before it: run the push again" in str(err.value)

    def gone(req, timeout):
        raise urllib.error.URLError("timed out")

    with pytest.raises(NetBoxAPIError) as err:
        NetBoxAPI("http://nb", "t", opener=gone).create("dcim/cables", [{"label": "W1"}, {"label": "W2"}])
    assert err.value.status is None and "cannot be reached (timed out)" in str(err.value)


def test_parallel_creates_keep_workers_requests_in_flight_and_the_order_given():
    """Cables are created ``workers`` bulk requests at a time (NetBox's workers serve them side by side); the
    objects come back in the order given, whatever order the requests end in."""
    import threading

    # the first three requests meet (three in flight at once), and the first ends only after the second has:
    # no sleeping, the requests' order is forced (the waits' limits matter only if the client is wrong)
    together, second_done = threading.Barrier(3), threading.Event()
    lock, state = threading.Lock(), {"now": 0, "most": 0}

    def answer(method, url, body):
        chunk = body[0]["n"] // CHUNK
        with lock:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
        if chunk < 3:
            together.wait(timeout=60)
        if chunk == 0:
            assert second_done.wait(timeout=60)
        with lock:
            state["now"] -= 1
        if chunk == 1:
            second_done.set()
        return 201, [{"id": o["n"] + 1000, **o} for o in body]

    seen = Recorder(answer)
    api = NetBoxAPI("http://nb", "t", opener=seen, workers=3)
    objects = [{"n": n} for n in range(CHUNK * 6 + 7)]
    made = api.create("dcim/cables", objects, parallel=True)
    assert [o["id"] for o in made] == [n + 1000 for n in range(len(objects))]
    assert len(seen.asked) == 7 and state["most"] == 3 and api.calls == {"POST": 7}
    # not parallel: one request after another (the first three no longer meet, so the barrier is left out)
    state["most"] = 0
    plain = Recorder(lambda m, u, b: (201, [{"id": o["n"]} for o in b]))
    NetBoxAPI("http://nb", "t", opener=plain, workers=3).create("dcim/cables", objects)
    assert len(plain.asked) == 7 and [b[0]["n"] for _, _, b, _ in plain.asked] == [CHUNK * k for k in range(7)]


def test_a_refused_parallel_request_names_its_objects_and_that_others_may_be_written():
    def answer(method, url, body):
        if body[0]["n"] == CHUNK * 2:
            return 500, {"detail": "deadlock detected"}
        return 201, [{"id": o["n"]} for o in body]

    api = NetBoxAPI("http://nb", "t", opener=Recorder(answer), workers=2)
    with pytest.raises(NetBoxAPIError, match=rf"{CHUNK:,} of {CHUNK * 4:,} objects, from object {CHUNK * 2 + 1:,}, "
                                             "sent beside others: NetBox may hold some of the rest") as caught:
        api.create("dcim/cables", [{"n": n} for n in range(CHUNK * 4)], parallel=True)
    assert caught.value.status == 500 and "deadlock detected" in str(caught.value)


def test_grouped_creates_never_send_one_groups_objects_in_two_requests_in_flight():
    """Interfaces of one device (or power cables of one rack) touch that device's row: a group's objects go in one
    request, requests in flight hold disjoint groups, a group larger than a request goes in requests one after
    another, and the objects come back in the order given."""
    import threading

    lock, flying, clashes = threading.Lock(), [], []

    def answer(method, url, body):
        keys = {o["device"] for o in body}
        with lock:
            clashes.extend(k for other in flying for k in keys & other)
            flying.append(keys)
        try:
            return 201, [{"id": o["n"] + 1000, **o} for o in body]
        finally:
            with lock:
                flying.remove(keys)

    # devices of 37 interfaces each, given interleaved as a file might list them, and one device of 250
    objects = [{"n": n, "device": n % 9} for n in range(9 * 37)] + [{"n": 9 * 37 + k, "device": "big"}
                                                                   for k in range(250)]
    seen = Recorder(answer)
    made = NetBoxAPI("http://nb", "t", opener=seen, workers=3).create(
        "dcim/interfaces", objects, groups=[o["device"] for o in objects])
    assert [o["id"] for o in made] == [o["n"] + 1000 for o in objects]
    assert not clashes
    requests = [[o["device"] for o in b] for _, _, b, _ in seen.asked]
    assert all(len(r) <= CHUNK for r in requests)
    # each small device whole in one request; the big one in three requests, in its order
    for device in range(9):
        assert sum(1 for r in requests if device in r) == 1
    big = [b for _, _, b, _ in seen.asked if b[0]["device"] == "big"]
    assert [len(b) for b in big] == [CHUNK, CHUNK, 50] and [b[0]["n"] for b in big] == [333, 333 + CHUNK,
                                                                                         333 + 2 * CHUNK]
    with pytest.raises(ValueError, match="2 group keys for 3 objects"):
        NetBoxAPI("http://nb", "t", opener=seen, workers=2).create("dcim/interfaces", [{}] * 3, groups=[1, 2])
