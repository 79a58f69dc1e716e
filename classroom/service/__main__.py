"""Run the class service: ``python -m classroom.service --db PATH``, started by JupyterHub as a managed service.

JupyterHub hands a managed service its address and credentials in the environment
(JUPYTERHUB_SERVICE_URL, JUPYTERHUB_SERVICE_PREFIX, JUPYTERHUB_API_TOKEN, ...), and starts it
again if it exits. The results live in the database file, so a restart loses nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import secrets
import signal
from urllib.parse import urlparse

from tornado.httpserver import HTTPServer

from classroom.service.app import make_app
from classroom.service.store import Store

DB_VARIABLE = "LAYERNORM_CLASS_DB"


async def serve(db: str) -> None:
    store = Store(db)
    app = make_app(store, os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/services/class/"))
    # The OAuth cookie's signing key lives only in memory: after a restart the lecturer's page
    # simply logs in again through the hub, without a click.
    app.settings["cookie_secret"] = secrets.token_bytes(32)
    address = urlparse(os.environ.get("JUPYTERHUB_SERVICE_URL", "http://127.0.0.1:8002"))
    # Up to 1 MiB is read and refused with a sentence (results.py allows 4 KiB); more, and the connection is closed.
    server = HTTPServer(app, xheaders=True, max_body_size=1024 * 1024)
    server.listen(address.port or 80, address.hostname or "127.0.0.1")
    where = store.path or store.engine.url.render_as_string(hide_password=True)
    logging.getLogger("classroom.service").info(
        "the class service listens on %s, results in %s", address.geturl(), where
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    server.stop()
    store.close()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m classroom.service", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--db",
        default=os.environ.get(DB_VARIABLE, ""),
        help=f"the SQLite file of the results (made if missing), or an SQLAlchemy URL (PostgreSQL); default "
        f"${DB_VARIABLE}, which keeps a URL's password off the command line other users can see",
    )
    arguments = parser.parse_args()
    if not arguments.db:
        parser.error(f"give --db or set {DB_VARIABLE}")
    logging.basicConfig(level=logging.INFO, format="[%(levelname).1s %(asctime)s class] %(message)s")
    asyncio.run(serve(arguments.db))


if __name__ == "__main__":
    main()
