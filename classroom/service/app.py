"""The class service's web application: tornado handlers behind JupyterHub's own authentication.

Who may do what (the hub decides who someone is; this file decides what they may see):

    POST /services/class/api/results      a student's own hub token (Authorization: token ...), a JSON
                                          body; the result is recorded for the token's owner
    GET  /services/class/api/summary      hub admins and the ``instructors`` group (JSON)
    GET  /services/class/api/results.csv  the same (one line per student per exercise)
    GET  /services/class/                 the live page, for the same, after the hub's OAuth login

Every request needs the scope ``access:services!service=class``, which the hub gives every
user (jupyterhub_config.py). Nothing here logs a header or a token: tornado's access log prints
the method, path and status only.
"""

from __future__ import annotations

import json
import logging

from jupyterhub.services.auth import HubOAuthCallbackHandler, HubOAuthenticated, UserNotAllowed
from tornado import web

from classroom.service import page, results
from classroom.service.catalogue import MISTAKES
from classroom.service.store import Store

INSTRUCTORS = "instructors"
log = logging.getLogger("classroom.service")


def may_see_class(model: dict | None) -> bool:
    """Hub admins, members of the instructors group, and admin services (scripts, tests)."""
    if not model:
        return False
    return (
        bool(model.get("admin"))
        or INSTRUCTORS in (model.get("groups") or [])
        or "admin:users" in model.get("scopes", ())
    )


class Base(HubOAuthenticated, web.RequestHandler):
    def initialize(self, store: Store):
        self.store = store

    async def prepare(self):
        # Ask the hub who this is without blocking the event loop (JupyterHub ≥ 2.4); the answer is
        # cached per token for a few minutes, so a burst of posts costs the hub one call per student.
        try:
            model = await self.hub_auth.get_user(self, sync=False)
            self._hub_auth_user_cache = self.check_hub_user(model) if model else None
        except UserNotAllowed:
            self._hub_auth_user_cache = None
            raise web.HTTPError(403, "This hub account may not use the class service.") from None

    def write_error(self, status_code, **kwargs):
        reason = kwargs.get("exc_info", (None, None))[1]
        message = getattr(reason, "log_message", None) or self._reason
        self.set_header("Content-Type", "application/json; charset=utf-8")
        self.finish(json.dumps({"status": status_code, "message": message}))

    def lecturer_only(self):
        if self.current_user is None:
            raise web.HTTPError(401, "Log in to the hub first: send a hub token or open the page through the hub.")
        if not may_see_class(self.current_user):
            raise web.HTTPError(
                403, "Only the lecturers (hub admins and the instructors group) see the class's results."
            )


class ResultsAPI(Base):
    def post(self):
        # A token in the header, not a browser cookie: a web page cannot post a verdict on anyone's behalf.
        if not getattr(self, "_token_authenticated", False) or self.current_user is None:
            raise web.HTTPError(401, "Send the result with your own hub token (Authorization: token ...).")
        if self.current_user.get("kind") != "user":
            raise web.HTTPError(403, "Only a student's own token records a result.")
        media = self.request.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if media != "application/json":
            raise web.HTTPError(400, "Send the result as JSON, with the header Content-Type: application/json.")
        try:
            result = results.parse(self.request.body)
        except results.Refused as refused:
            raise web.HTTPError(400, str(refused)) from None
        new = self.store.add(self.current_user["name"], result)
        self.set_status(201 if new else 200)
        self.finish({"stored": new, "id": result.id})


class SummaryAPI(Base):
    def get(self):
        self.lecturer_only()
        names = self.get_argument("names", "0") == "1"
        self.set_header("Cache-Control", "no-store")
        self.finish({"exercises": self.store.summary(names=names), "results": self.store.count(), "labels": MISTAKES})


class ResultsCSV(Base):
    def get(self):
        self.lecturer_only()
        self.set_header("Content-Type", "text/csv; charset=utf-8")
        self.set_header("Content-Disposition", 'attachment; filename="class-results.csv"')
        self.set_header("Cache-Control", "no-store")
        self.finish(self.store.csv())


class LivePage(Base):
    @web.authenticated  # not logged in: off to the hub's login (OAuth), then back here
    def get(self):
        self.lecturer_only()
        self.set_header("Cache-Control", "no-store")
        self.finish(page.render(self.xsrf_token.decode() if isinstance(self.xsrf_token, bytes) else self.xsrf_token))


def make_app(store: Store, prefix: str) -> web.Application:
    prefix = prefix.rstrip("/") + "/"
    handlers = [
        (prefix, LivePage),
        (prefix + "api/results", ResultsAPI),
        (prefix + "api/summary", SummaryAPI),
        (prefix + "api/results.csv", ResultsCSV),
    ]
    routes = [(path, handler, {"store": store}) for path, handler in handlers]
    routes.append((prefix + "oauth_callback", HubOAuthCallbackHandler))
    return web.Application(routes, cookie_secret=None, log_function=_log_request)


def _log_request(handler: web.RequestHandler) -> None:
    # Method, path (no query string) and status: never a header, so never a token.
    request = handler.request
    log.info("%d %s %s %.1f ms", handler.get_status(), request.method, request.path, 1000 * request.request_time())
