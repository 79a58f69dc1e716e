"""A stand-in for the class service's HTTP answer (what urllib.request.urlopen returns), for the class record's
tests: only its status, and the context manager the record opens it with."""

from __future__ import annotations


class Answer:
    def __init__(self, status):
        self.status = status

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
