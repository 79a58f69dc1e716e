"""A small stand-in for JupyterHub's identity, for testing the class service's rules without a hub or root.

It provides what classroom/service/app.py imports from ``jupyterhub.services.auth`` (HubOAuthenticated,
HubOAuthCallbackHandler, UserNotAllowed) and behaves as JupyterHub 6's HubAuth does at the points the
service relies on (read from jupyterhub/services/auth.py): a token in the Authorization header
("token X" or "bearer X", or ?token=X) is looked up first and, when it belongs to someone, marks the
request ``_token_authenticated``; otherwise a login cookie is looked up; ``check_hub_user`` lets a user or
service through only with one of the service's access scopes, and raises UserNotAllowed otherwise; an
unknown token or none gives no user. The identities are the test's own table (:data:`IDENTITIES`).

:func:`install` puts it in ``sys.modules`` when the real JupyterHub is not importable (the project's own
environment); with JupyterHub installed the real mixin is used (its check_hub_user and get_current_user) and
only the hub it asks is this one's: the test sets the handlers' ``hub_auth`` to :class:`FakeHubAuth`.
"""

from __future__ import annotations

import re
import sys
import types

from tornado import web

ACCESS = "access:services!service=class"  # what the hub grants every user (jupyterhub_config.py)
LOGIN_COOKIE = "fake-hub-login"
IDENTITIES: dict[str, dict] = {}  # token (or login cookie value) -> the hub's model of its owner
_HEADER = re.compile(r"(?:token|bearer)\s+(.+)", re.IGNORECASE)


def model(name, kind="user", admin=False, groups=(), scopes=(ACCESS,)) -> dict:
    """A hub model as HubAuth returns it for a token's owner."""
    return {"name": name, "kind": kind, "admin": admin, "groups": list(groups), "scopes": list(scopes)}


class UserNotAllowed(Exception):
    def __init__(self, model):
        self.model = model


class FakeHubAuth:
    access_scopes = {ACCESS}

    async def _get_user(self, handler):
        if hasattr(handler, "_cached_hub_user"):
            return handler._cached_hub_user
        token = handler.get_argument("token", "") or None
        if not token:
            match = _HEADER.match(handler.request.headers.get("Authorization", ""))
            token = match.group(1).strip() if match else None
        found = dict(IDENTITIES[token]) if token in IDENTITIES else None
        if found is not None:
            handler._token_authenticated = True
        else:
            cookie = handler.get_cookie(LOGIN_COOKIE)
            found = dict(IDENTITIES[cookie]) if cookie in IDENTITIES else None
        handler._cached_hub_user = found
        return found

    def get_user(self, handler, *, sync=True):
        if sync:
            raise RuntimeError("the class service asks the hub without blocking (sync=False)")
        return self._get_user(handler)

    def check_scopes(self, required, user):
        return set(required) & set(user.get("scopes", ()))


class HubOAuthenticated:
    """The parts of JupyterHub's HubAuthenticated mixin the class service uses."""

    hub_auth = FakeHubAuth()

    def check_hub_user(self, model):
        model.setdefault("kind", "user")
        if self.hub_auth.check_scopes(self.hub_auth.access_scopes, model):
            return model
        raise UserNotAllowed(model)

    def get_current_user(self):
        return getattr(self, "_hub_auth_user_cache", None)

    def get_login_url(self):
        return "/hub/login"


class HubOAuthCallbackHandler(web.RequestHandler):
    def get(self):
        raise web.HTTPError(400, "not used in the tests")


def install() -> str:
    """Make ``jupyterhub.services.auth`` importable: the real one when JupyterHub is installed, else this
    stand-in. Returns which ("real" or "fake")."""
    try:
        from jupyterhub.services import auth  # noqa: F401
    except ImportError:
        package = types.ModuleType("jupyterhub")
        services = types.ModuleType("jupyterhub.services")
        auth = types.ModuleType("jupyterhub.services.auth")
        for name in ("HubOAuthenticated", "HubOAuthCallbackHandler", "UserNotAllowed"):
            setattr(auth, name, globals()[name])
        package.services, services.auth = services, auth
        sys.modules.update({"jupyterhub": package, "jupyterhub.services": services, "jupyterhub.services.auth": auth})
        return "fake"
    return "real"
