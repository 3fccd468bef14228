"""MkDocs hook: show the docstrings' Sphinx roles (``:class:`~a.b.C```) as plain code.

The docstrings are Google style but cross-reference with Sphinx roles, which mkdocstrings'
Google parser leaves as text (``:class:`` before the code).  This drops the role and, for a
``~`` target, keeps the last dotted part, as Sphinx would show it.
"""

import re

_ROLE = re.compile(r":(?:class|mod|func|meth|data|attr|exc|obj):<code>(~?)([^<]*)</code>")


def _code(match: re.Match) -> str:
    target = match.group(2)
    if match.group(1):
        target = target.rsplit(".", 1)[-1]
    return f"<code>{target}</code>"


def on_page_content(html: str, **kwargs) -> str:
    return _ROLE.sub(_code, html)
