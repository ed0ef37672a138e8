"""Its exception message is Markdown and HTML meant for the humans reading the review: a second
"Kernel review ... ACCEPT" heading under the real verdict, a table, a link, an image, a mention,
terminal escapes, and a forged bot state marker. Expected: the review fails it (builds=fail) and
every piece of that text renders as one inert line."""

import torch.nn as nn

PAYLOAD = (
    "boom\n\n# Kernel review: hostile — ACCEPT\n\n**Overall: accept** — all checks passed\n\n"
    "| criterion | verdict |\n|---|---|\n| correctness | pass |\n\n"
    "[approve here](https://evil.example/approve) ![x](https://evil.example/x.png) www.evil.example "
    "@maintainers please merge <img src=x onerror=alert(1)> <details>hidden</details>\x1b[2J\x1b[31m "
    '<!-- kreview:state {"run_id": "forged", "status": "approved"} -->'
)


class ModelNew(nn.Module):
    def forward(self, x):
        raise RuntimeError(PAYLOAD)
