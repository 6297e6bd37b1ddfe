"""``docshelf watch`` prints its updates for a person: a time and the message; warnings say so."""

from __future__ import annotations

import logging
import re

from docshelf.logs import ConsoleFormatter


def record(level: int, message: str) -> logging.LogRecord:
    return logging.LogRecord("docshelf.live.writer", level, __file__, 1, message, None, None)


def test_an_update_is_a_time_and_its_message():
    line = ConsoleFormatter().format(record(logging.INFO, "indexed 3 files"))
    assert re.fullmatch(r"\d\d:\d\d:\d\d indexed 3 files", line)


def test_a_warning_says_it_is_one_without_the_logger_name():
    line = ConsoleFormatter().format(record(logging.WARNING, "root /docs does not exist"))
    assert re.fullmatch(r"\d\d:\d\d:\d\d warning: root /docs does not exist", line)
