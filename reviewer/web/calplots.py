"""Calibration charts: one quantity per axis (accuracy and kappa are separate charts, each criterion a
labelled row, so no label collides with another)."""

from __future__ import annotations

from typing import Any

from reviewer.web.plots import COLORS, Chart, Shape, _Axis, _short, _x_axis


def _bars(cid: str, title: str, rows: list[tuple[str, float | None, str]], lo: float, axis_label: str,
          caption: str = "") -> Chart:
    bar_h, left, top = 18, 190, 10
    ax = _Axis([lo, 1.0], left, 500, log=False, zero=lo == 0)
    ax.lo, ax.hi = lo, 1.0
    shapes: list[Shape] = []
    y = top
    for name, v, detail in rows:
        shapes.append(Shape(kind="text", x=left - 6, y=y + 13, text=_short(name, 30), anchor="end", cls="tick", tip=name))
        if v is None:
            shapes.append(Shape(kind="text", x=left + 4, y=y + 13, text="undefined (no decided cases)", cls="tick"))
        else:
            x0 = ax(max(lo, min(0.0, v))) if lo < 0 else left
            x1 = ax(max(lo, v))
            shapes.append(Shape(kind="rect", x=min(x0, x1), y=y, w=max(1.0, abs(x1 - x0)), h=bar_h - 3,
                                fill=COLORS["info"], tip=f"{name}: {detail}", cls="bar"))
            shapes.append(Shape(kind="text", x=508, y=y + 13, text=detail, cls="tick"))
        y += bar_h + 3
    if lo < 0:
        shapes.append(Shape(kind="line", x=ax(0.0), y=top, x2=ax(0.0), y2=y, cls="limit"))
    _x_axis(shapes, ax, y + 4, axis_label, 640)
    return Chart(id=cid, title=title, height=y + 48, shapes=shapes, caption=caption)


def calibration_charts(cal: dict[str, Any]) -> list[Chart]:
    crits = cal.get("criteria") or []
    overall = cal.get("overall") or {}
    acc = [(c["criterion"], c.get("accuracy_decided"), f"{c.get('agree', 0)} of {c.get('decided', 0)} decided")
           for c in crits]
    acc.append(("overall", overall.get("accuracy_decided"),
                f"{overall.get('agree', 0)} of {overall.get('decided', 0)} decided"))
    kappa = [(c["criterion"], c.get("kappa"), f"{c['kappa']:.2f}" if c.get("kappa") is not None else "") for c in crits]
    kappa.append(("overall", overall.get("kappa"), f"{overall['kappa']:.2f}" if overall.get("kappa") is not None else ""))
    return [
        _bars("chart-accuracy", "Agreement with the human grades (decided cases)", acc, 0.0,
              "share of decided cases where the reviewer agrees (1 = all)",
              "unverified and not-applicable verdicts are not decided and never count as agreement"),
        _bars("chart-kappa", "Cohen's kappa per criterion", kappa, -1.0, "kappa (0 = chance, 1 = perfect)"),
    ]
