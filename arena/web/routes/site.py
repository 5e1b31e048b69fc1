"""What every route group of `arena serve` shares: the server, the page templates (a Jinja2 sandbox, autoescaped),
the page's language, and the token lookups that answer 404 to a link that is not one."""

from __future__ import annotations

from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from fastapi import HTTPException, Request
from fastapi.responses import HTMLResponse
from jinja2 import FileSystemLoader, select_autoescape
from jinja2.sandbox import ImmutableSandboxedEnvironment

from arena.web.guard import token_ok
from arena.web.i18n import LANGS, pick_lang, words
from arena.web.server import ServeConfig, Server
from arena.web.table import Table


def _templates() -> ImmutableSandboxedEnvironment:
    folder = resources.files("arena.web") / "templates"
    return ImmutableSandboxedEnvironment(
        loader=FileSystemLoader(str(folder)), autoescape=select_autoescape(default=True, default_for_string=True)
    )


@dataclass
class Site:
    """The server and the templates, with the helpers each route group uses."""

    server: Server
    env: ImmutableSandboxedEnvironment = field(default_factory=_templates)

    @property
    def config(self) -> ServeConfig:
        return self.server.config

    def page(self, template: str, lang: str, boot: dict[str, Any], title: str = "") -> HTMLResponse:
        others = [x for x in LANGS if x != lang]
        html = self.env.get_template(template).render(
            w=words(lang), lang=lang, other_langs=others, boot=boot, title=title or words(lang)["title"]
        )
        return HTMLResponse(html)

    def lang_of(self, request: Request, default: str) -> str:
        return pick_lang(request.query_params.get("lang"), default)

    def seat_or_404(self, token: str) -> tuple[Table, int]:
        found = self.server.lookup(token) if token_ok(token) else None
        if found is None:
            raise HTTPException(status_code=404, detail="unknown link")
        return found

    def role_or_404(self, token: str, role: str) -> Table:
        """The table whose `role` link (`judge`, `join`) `token` is."""
        table = self.server.lookup_role(token, role) if token_ok(token) else None
        if table is None:
            raise HTTPException(status_code=404, detail="unknown link")
        return table

    def admin_or_404(self, token: str) -> None:
        if not (token_ok(token) and self.server.is_admin(token)):
            raise HTTPException(status_code=404, detail="unknown link")
