"""Charts drawn on the server as inline SVG: nothing to load, nothing fetched, works offline."""

from __future__ import annotations

from collections.abc import Callable

from markupsafe import Markup, escape

BAR_HEIGHT = 18
LABEL_WIDTH = 260


def _plain(value: float) -> str:
    return f"{value:,.0f}"


def horizontal_bars(
    items: list[tuple[str, float]], *, width: int = 720, shown: Callable[[float], str] = _plain
) -> Markup:
    """One labelled bar per item, longest first as given; values printed at the bar's end."""
    if not items:
        return Markup("")
    top = max(value for _, value in items) or 1
    span = width - LABEL_WIDTH - 110
    rows = []
    for index, (label, value) in enumerate(items):
        y = index * (BAR_HEIGHT + 6)
        length = max(1, round(span * value / top)) if value else 0
        rows.append(
            f'<text x="{LABEL_WIDTH - 8}" y="{y + 13}" text-anchor="end">{escape(label[:40])}</text>'
            f'<rect x="{LABEL_WIDTH}" y="{y}" width="{length}" height="{BAR_HEIGHT}" class="bar">'
            f"<title>{escape(label)}: {escape(shown(value))}</title></rect>"
            f'<text x="{LABEL_WIDTH + length + 6}" y="{y + 13}">{escape(shown(value))}</text>'
        )
    height = len(items) * (BAR_HEIGHT + 6)
    return Markup(
        f'<svg class="chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'role="img" xmlns="http://www.w3.org/2000/svg">{"".join(rows)}</svg>'
    )


def day_columns(
    days: list[tuple[str, float]], *, height: int = 160, shown: Callable[[float], str] = _plain
) -> Markup:
    """One column per day (oldest left), the day under every few columns."""
    if not days:
        return Markup("")
    top = max(value for _, value in days) or 1
    step = max(8, min(40, 720 // len(days)))
    width = step * len(days) + 20
    plot = height - 30
    parts = []
    every = max(1, len(days) // 8)
    for index, (day, value) in enumerate(days):
        x = 10 + index * step
        tall = round(plot * value / top) if value else 0
        parts.append(
            f'<rect x="{x}" y="{plot - tall}" width="{step - 2}" height="{tall}" class="bar">'
            f"<title>{escape(day)}: {escape(shown(value))}</title></rect>"
        )
        if index % every == 0:
            parts.append(f'<text x="{x}" y="{height - 10}">{escape(day[5:])}</text>')
    return Markup(
        f'<svg class="chart" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'role="img" xmlns="http://www.w3.org/2000/svg">{"".join(parts)}</svg>'
    )
