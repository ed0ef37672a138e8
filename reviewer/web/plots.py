"""Charts of a review's evidence as data for the SVG template (``templates/_chart.html``).

Each chart keeps one quantity per axis. Nothing here writes markup: a chart is a list of shapes with
coordinates and plain-text labels, and the template escapes every label (labels may come from the
submission: case names, kernel names).
"""

from __future__ import annotations

import math
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from reviewer.core.models import Evidence, Review
from tools.engine.registry import results
from tools.engine.results import BenchmarkResult, GeneralityResult, JudgedResult, ResourcesResult, RooflineResult

COLORS = {"pass": "#2e7d32", "fail": "#c62828", "unverified": "#8d6e00", "info": "#1565c0",
          "inconclusive": "#8d6e00", "rejected": "#6d4c41", "invalid": "#6d4c41", "skipped": "#9e9e9e",
          "submission": "#c62828", "reference": "#1565c0", "limit": "#455a64"}


class Shape(BaseModel):
    kind: str  # rect | circle | line | text
    x: float = 0
    y: float = 0
    w: float = 0
    h: float = 0
    x2: float = 0
    y2: float = 0
    r: float = 0
    cls: str = ""
    fill: str = ""
    text: str = ""
    anchor: str = "start"
    tip: str = ""


class Chart(BaseModel):
    id: str
    title: str
    caption: str = ""
    width: int = 640
    height: int = 240
    shapes: list[Shape] = Field(default_factory=list)
    legend: list[tuple[str, str]] = Field(default_factory=list)
    """(label, color)"""


def _fmt(v: float) -> str:
    if v == 0:
        return "0"
    if abs(v) >= 1e4 or abs(v) < 1e-2:
        return f"{v:.0e}".replace("e+0", "e").replace("e-0", "e-")
    return f"{v:g}"


class _Axis:
    """A linear or log10 axis mapping values onto [lo_px, hi_px]."""

    def __init__(self, values: list[float], lo_px: float, hi_px: float, log: bool, zero: bool = False) -> None:
        vals = [v for v in values if math.isfinite(v) and (v > 0 or not log)]
        self.log = log and bool(vals)
        if self.log:
            lo, hi = math.floor(math.log10(min(vals))), math.ceil(math.log10(max(vals)))
            self.lo, self.hi = lo, max(hi, lo + 1)
        else:
            lo, hi = (min(vals), max(vals)) if vals else (0.0, 1.0)
            lo = min(lo, 0.0) if zero else lo
            if hi <= lo:
                hi = lo + (abs(lo) or 1.0)
            self.lo, self.hi = lo, hi + (hi - lo) * 0.05
        self.lo_px, self.hi_px = lo_px, hi_px

    def __call__(self, v: float) -> float:
        if not math.isfinite(v):  # an infinite or NaN error sits at the axis' end, labelled by its tooltip
            v = self.hi if not self.log else 10.0 ** self.hi
        if self.log:
            v = math.log10(v) if v > 0 else self.lo
        return self.lo_px + (v - self.lo) / (self.hi - self.lo) * (self.hi_px - self.lo_px)

    def ticks(self) -> list[tuple[float, str]]:
        if self.log:
            step = max(1, (self.hi - self.lo) // 6)
            return [(10.0 ** e, _fmt(10.0 ** e)) for e in range(int(self.lo), int(self.hi) + 1, int(step))]
        raw = (self.hi - self.lo) / 5
        mag = 10.0 ** math.floor(math.log10(raw))
        step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
        first = math.ceil(self.lo / step) * step
        return [(v, _fmt(round(v, 12))) for v in (first + i * step for i in range(12)) if v <= self.hi + 1e-12]


def _x_axis(shapes: list[Shape], ax: _Axis, y: float, label: str, width: float) -> None:
    shapes.append(Shape(kind="line", x=ax.lo_px, y=y, x2=ax.hi_px, y2=y, cls="axis"))
    for v, t in ax.ticks():
        px = ax(v)
        shapes.append(Shape(kind="line", x=px, y=y, x2=px, y2=y + 4, cls="axis"))
        shapes.append(Shape(kind="text", x=px, y=y + 16, text=t, anchor="middle", cls="tick"))
    shapes.append(Shape(kind="text", x=(ax.lo_px + ax.hi_px) / 2, y=y + 32, text=label, anchor="middle", cls="label"))


def _y_axis(shapes: list[Shape], ax: _Axis, x: float, label: str) -> None:
    shapes.append(Shape(kind="line", x=x, y=ax.lo_px, x2=x, y2=ax.hi_px, cls="axis"))
    for v, t in ax.ticks():
        py = ax(v)
        shapes.append(Shape(kind="line", x=x - 4, y=py, x2=x, y2=py, cls="axis"))
        shapes.append(Shape(kind="text", x=x - 6, y=py + 4, text=t, anchor="end", cls="tick"))
    shapes.append(Shape(kind="text", x=14, y=(ax.lo_px + ax.hi_px) / 2, text=label, anchor="middle", cls="label ylabel"))


def _short(text: str, n: int = 34) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def generality_charts(review: Review) -> list[Chart]:
    """Which configurations the generality search tried on each axis, and which failed."""
    charts = []
    for e, r in results(review.evidence, GeneralityResult):
        if r.search is None or not r.search.tried:
            continue
        tried = [t.model_dump() for t in r.search.tried]
        axis = str(r.search.axis if r.search.axis is not None else "configurations")
        keys = sorted({k for t in tried for k, v in t["config"].items() if isinstance(v, (int, float))
                       and not isinstance(v, bool)})
        verdicts = sorted({str(t.get("verdict", "?")) for t in tried})
        legend = [(v, COLORS.get(v, "#9e9e9e")) for v in verdicts]
        cid = f"chart-{e.id}"
        if len(keys) >= 2:
            kx, ky = keys[0], keys[1]
            pts = [(float(t["config"][kx]), float(t["config"][ky]), t) for t in tried
                   if isinstance(t["config"].get(kx), (int, float)) and isinstance(t["config"].get(ky), (int, float))]
            shapes: list[Shape] = []
            ax = _Axis([p[0] for p in pts], 70, 610, log=True)
            ay = _Axis([p[1] for p in pts], 250, 20, log=True)
            _x_axis(shapes, ax, 250, f"{kx} (log scale)", 640)
            _y_axis(shapes, ay, 70, f"{ky} (log)")
            for x, y, t in pts:
                rest = {k: v for k, v in t["config"].items() if k not in (kx, ky)}
                tip = f"{kx}={x:g}, {ky}={y:g}{' ' + str(rest) if rest else ''}: {t.get('verdict')} {t.get('note', '')}"
                shapes.append(Shape(kind="circle", x=ax(x), y=ay(y), r=5, fill=COLORS.get(str(t.get("verdict")), "#9e9e9e"),
                                    tip=tip.strip(), cls=f"pt {t.get('verdict')}"))
            charts.append(Chart(id=cid, title=f"Generality, {axis}: {kx} vs {ky} tried", height=300, shapes=shapes,
                                legend=legend, caption=f"{len(pts)} configurations from {e.id}; colour is the outcome"))
        else:
            # categorical (layouts, dtypes) or one numeric dimension: one tile per configuration
            shapes = []
            per_row, tile_w = 4, 150
            for i, t in enumerate(tried):
                label = ", ".join(f"{k}={v}" for k, v in t["config"].items())
                x, y = 10 + (i % per_row) * (tile_w + 6), 10 + (i // per_row) * 34
                color = COLORS.get(str(t.get("verdict")), "#9e9e9e")
                shapes.append(Shape(kind="rect", x=x, y=y, w=tile_w, h=28, fill=color, cls="tile",
                                    tip=f"{label}: {t.get('verdict')} {t.get('note', '')}".strip()))
                shapes.append(Shape(kind="text", x=x + 6, y=y + 18, text=_short(label, 22), cls="tiletext"))
            rows = (len(tried) + per_row - 1) // per_row
            charts.append(Chart(id=cid, title=f"Generality, {axis}: configurations tried", height=20 + rows * 34,
                                shapes=shapes, legend=legend, caption=f"{len(tried)} configurations from {e.id}"))
    return charts


def _budget_rows(e: Evidence) -> list[tuple[str, float, float, str]]:
    try:
        budget = e.result_as(JudgedResult).error_budget
    except ValidationError:  # a stored result of another shape: no rows, the page still renders
        return []
    if budget is None or not budget.available:
        return []
    rows = []
    label = str((e.inputs.get("case") or {}).get("label") or e.check or e.id)
    outs = budget.outputs
    for o in outs:
        sub, ref = o.sub_max_err, o.ref_max_err
        if sub is not None and ref is not None:
            name = label if len(outs) == 1 else f"{label} [out {o.path}]"
            rows.append((f"{e.id}: {name}", float(sub), float(ref), e.outcome))
    return rows


def error_chart(review: Review) -> Chart | None:
    """Max error against float64 per probe: the submission's bar next to the reference's own."""
    rows = [r for e in review.evidence for r in _budget_rows(e)][:24]
    if not rows:
        return None
    bar_h, gap, top, left = 9, 8, 10, 300
    height = top + len(rows) * (2 * bar_h + gap) + 50
    ax = _Axis([v for r in rows for v in r[1:3]], left, 620, log=True)
    shapes: list[Shape] = []
    y = top
    for name, sub, ref, outcome in rows:
        shapes.append(Shape(kind="text", x=left - 6, y=y + bar_h + 4, text=_short(name, 46), anchor="end", cls="tick",
                            tip=name))
        for i, (who, v) in enumerate((("submission", sub), ("reference", ref))):
            w = max(1.0, ax(v) - left) if v > 0 else 1.0
            shapes.append(Shape(kind="rect", x=left, y=y + i * bar_h, w=w, h=bar_h - 1, fill=COLORS[who],
                                tip=f"{name}: {who} max abs error vs float64 {v:.3g}", cls=f"bar {who}"))
        y += 2 * bar_h + gap
    _x_axis(shapes, ax, y, "max abs error against float64 (log scale)", 640)
    return Chart(id="chart-error", title="Error against float64, per probe", height=height, shapes=shapes,
                 legend=[("submission", COLORS["submission"]), ("reference (its own error)", COLORS["reference"])],
                 caption="a kernel is judged by its error relative to the reference's own, not by the reference")


_MAX_REGS = 255  # per thread on every NVIDIA architecture since sm_30
_MAX_THREADS = 1024


def resource_chart(review: Review) -> Chart | None:
    """Each kernel's resource figures as a share of the target's limit."""
    rows: list[tuple[str, float, str]] = []
    for _, r in results(review.evidence, ResourcesResult):
        if r.registers is None:
            continue
        who = f"{r.kernel if r.kernel is not None else '?'} {r.arch or ''}".strip()
        lim = r.limits
        rows.append((f"{who} registers/thread", r.registers / _MAX_REGS, f"{r.registers} of {_MAX_REGS}"))
        smem = r.smem_per_block
        if smem is not None and lim.get("smem_per_block_optin"):
            rows.append((f"{who} shared mem/block", smem / lim["smem_per_block_optin"],
                         f"{smem} B of {lim['smem_per_block_optin']} B"))
        tpb = r.threads_per_block
        if tpb is not None:
            rows.append((f"{who} threads/block", tpb / _MAX_THREADS, f"{tpb} of {_MAX_THREADS}"))
        spill = (r.spill_stores or 0) + (r.spill_loads or 0)
        if spill:
            rows.append((f"{who} spill bytes", 1.0, f"{spill} B spilled"))
        occ = r.occupancy.occupancy if r.occupancy is not None else None
        if occ is not None:
            rows.append((f"{who} occupancy", float(occ), f"{occ:.0%} of the SM's warps"))
    if not rows:
        return None
    rows = rows[:24]
    bar_h, left, top = 16, 260, 10
    ax = _Axis([0.0, 1.0], left, 500, log=False, zero=True)
    ax.hi = 1.0
    shapes: list[Shape] = []
    y = top
    for name, share, detail in rows:
        shapes.append(Shape(kind="text", x=left - 6, y=y + 12, text=_short(name, 40), anchor="end", cls="tick", tip=name))
        color = COLORS["fail"] if share > 1 or "spill" in name else COLORS["info"]
        shapes.append(Shape(kind="rect", x=left, y=y, w=max(1.0, ax(min(share, 1.0)) - left), h=bar_h - 2, fill=color,
                            tip=f"{name}: {detail}", cls="bar"))
        shapes.append(Shape(kind="text", x=508, y=y + 12, text=detail, cls="tick"))
        y += bar_h + 4
    shapes.append(Shape(kind="line", x=ax(1.0), y=top, x2=ax(1.0), y2=y, cls="limit"))
    _x_axis(shapes, ax, y + 4, "share of the target's limit (1 = the limit)", 640)
    return Chart(id="chart-resources", title="Resources against the target's limits", height=y + 48, shapes=shapes)


def roofline_chart(review: Review) -> Chart | None:
    """The speed-of-light floor per device (microseconds), with the measured time where there is one."""
    roofs = [r for _, r in results(review.evidence, RooflineResult) if r.bounds]
    bounds = roofs[0].bounds if roofs else {}
    rows = []
    for dev, b in bounds.items():
        for v, label in ((b.floor_us, "floor"), (b.cold_floor_us, "floor, cold L2"), (b.roofline_us, "roofline")):
            if v is not None:
                rows.append((f"{dev} {label}", float(v)))
    measured = None
    for _, r in results(review.evidence, BenchmarkResult):
        sub = r.summaries.get("submission/eager")
        if sub is not None and sub.median is not None:
            measured = sub.median * 1e6
    if not rows:
        return None
    rows = rows[:24]
    bar_h, left, top = 14, 200, 10
    ax = _Axis([v for _, v in rows] + ([measured] if measured else []), left, 600, log=False, zero=True)
    shapes: list[Shape] = []
    y = top
    for name, v in rows:
        shapes.append(Shape(kind="text", x=left - 6, y=y + 11, text=name, anchor="end", cls="tick"))
        shapes.append(Shape(kind="rect", x=left, y=y, w=max(1.0, ax(v) - left), h=bar_h - 2, fill=COLORS["info"],
                            tip=f"{name}: {v:.4g} us", cls="bar"))
        y += bar_h + 4
    if measured is not None:
        shapes.append(Shape(kind="line", x=ax(measured), y=top, x2=ax(measured), y2=y, cls="limit",
                            tip=f"measured median {measured:.4g} us"))
    _x_axis(shapes, ax, y + 4, "time in microseconds", 640)
    return Chart(id="chart-roofline", title="Roofline floor per device", height=y + 48, shapes=shapes,
                 caption="the least time the kernel's compulsory work allows; a kernel cannot beat its floor")


def charts_for(review: Review) -> list[Chart]:
    out = generality_charts(review)
    for make in (error_chart, resource_chart, roofline_chart):
        c = make(review)
        if c is not None:
            out.append(c)
    return out
