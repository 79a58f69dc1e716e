"""The summary API names students for ``?names=1`` only (classroom/service/app.py; the live page's docstring:
"No student names unless the lecturer presses "Show names" (or opens the page with ?names=1)"): ?names=0, an
empty value, "true" or "yes" keep a projector safe. And the service answers under its prefix whether or not
the hub hands it with its trailing "/".

Run on the real handlers with tests/classroom/fake_hub.py's identities, as test_service_permissions.py does.
"""

from __future__ import annotations

import json
import uuid

import pytest
from test_service_permissions import PEOPLE, fake_hub, serve, service, token
from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine

from classroom.service.store import Store

SUMMARY = "/services/class/api/summary"
HOST = HTTPHeaders({"Host": "127.0.0.1"})


@pytest.fixture(scope="module")
def answers(tmp_path_factory) -> dict:
    """The teacher's summary for each query, from one store where alice failed and bob passed."""
    store = Store(tmp_path_factory.mktemp("class") / "class.sqlite")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fake_hub, "IDENTITIES", dict(PEOPLE))
        patch.setattr(service.Base, "hub_auth", fake_hub.FakeHubAuth(), raising=False)
        posts = []
        for who, passed, mistake in (("alice-token", False, "n-1"), ("bob-token", True, None)):
            body = {"notebook": "03", "step": "variance", "passed": passed, "mistake": mistake, "id": str(uuid.uuid4())}
            posts.append(("POST", "/services/class/api/results", {**token(who), "Content-Type": "application/json"},
                          json.dumps(body)))  # fmt: skip
        queries = ["", "?names=0", "?names=", "?names=true", "?names=yes", "?names=01", "?names=1"]
        found = serve(store, *posts, *[("GET", SUMMARY + query, token("teacher-token"), None) for query in queries])
        assert [code for code, _ in found] == [201, 201] + [200] * len(queries)
    store.close()
    return dict(zip(queries, (answer for _, answer in found[2:]), strict=True))


@pytest.mark.parametrize("query", ["", "?names=0", "?names=", "?names=true", "?names=yes", "?names=01"])
def test_without_names_1_no_student_is_named(answers, query):
    [exercise] = answers[query]["exercises"]
    assert "names" not in exercise
    assert "alice" not in json.dumps(answers[query]) and "bob" not in json.dumps(answers[query])
    assert (exercise["tried"], exercise["passed"], exercise["mistakes"]) == (2, 1, {"n-1": 1})


def test_names_1_names_who_passed_and_who_made_each_mistake(answers):
    [exercise] = answers["?names=1"]["exercises"]
    assert exercise["names"] == {"passed": ["bob"], "mistakes": {"n-1": ["alice"]}}


@pytest.mark.parametrize("prefix", ["/services/class/", "/services/class"])
@pytest.mark.parametrize(
    ("path", "handler"),
    [
        ("/services/class/", "LivePage"),
        ("/services/class/api/results", "ResultsAPI"),
        ("/services/class/api/summary", "SummaryAPI"),
        ("/services/class/api/results.csv", "ResultsCSV"),
        ("/services/class/oauth_callback", "HubOAuthCallbackHandler"),
    ],
)
def test_each_path_under_the_prefix_reaches_its_handler_with_or_without_the_prefixs_slash(prefix, path, handler):
    app = service.make_app(None, prefix)
    found = app.find_handler(HTTPServerRequest(start_line=RequestStartLine("GET", path, "HTTP/1.1"), headers=HOST))
    assert found.handler_class.__name__ == handler


@pytest.mark.parametrize("path", ["/services/class", "/services/class/api/summary/", "/services/classes/api/summary"])
def test_nothing_else_reaches_a_handler_of_the_service(path):
    app = service.make_app(None, "/services/class/")
    found = app.find_handler(HTTPServerRequest(start_line=RequestStartLine("GET", path, "HTTP/1.1"), headers=HOST))
    assert found.handler_class.__name__ == "ErrorHandler"
