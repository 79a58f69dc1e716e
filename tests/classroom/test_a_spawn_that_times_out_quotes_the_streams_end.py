"""Student.spawn: a progress stream that runs out of time is a failed start whose one sentence quotes the last
300 characters the stream had sent (the latest events say where the start got stuck), not its first ones."""

from __future__ import annotations

import ast
import re

import pytest

# the stand-in hub and its player from the students' requests tests (classroom/sim/client.py's Student)
from test_sim_student_requests import play

PARTS = [f'data: {{"progress": {i:03d}, "message": "{"x" * 70}"}}\n\n'.encode() for i in range(40)]


@pytest.mark.slow  # a stand-in server and a time limit run out
def test_the_sentence_quotes_the_last_300_characters_received():
    answers = {
        ("POST", "/hub/api/users/sim/server"): (202, {}, b""),
        ("GET", "/hub/api/users/sim/server/progress"): (200, {}, PARTS),  # 0.05 s apart: 2 s in all
    }
    outcome, _, _ = play(answers, lambda s: s.spawn(timeout=0.6), token="T")
    found = re.fullmatch(r"sim: the server did not start \(.+ after 0\.\d s\): (.*)", str(outcome), re.S)
    assert found, str(outcome)
    quoted = ast.literal_eval(found[1])  # the repr of the stream's end
    stream = b"".join(PARTS).decode()
    assert len(quoted) == 300
    assert '"progress": 000' not in quoted  # the first event is more than 300 characters back
    assert any(stream[:end].endswith(quoted) for end in range(300, len(stream)))
