"""Reads what the user can read: the LLM config with its api_key in HOME, another run's
review.json, /etc/shadow. Expected: none of them exists in the sandbox."""


def attack(t: dict) -> dict:
    read = []
    for path in t.get("files", []) + ["/etc/shadow"]:
        try:
            with open(path, "rb") as fh:
                fh.read(1)
            read.append(path)
        except OSError:
            pass
    return {"read": read}


# -- the same file is a KernelBench submission (the review runs it) and a stdlib script (the
# unprivileged run of the suite): it reports what it achieved, as JSON, in its exception.
def _targets() -> dict:
    import json
    from pathlib import Path

    p = Path(__file__).with_name("targets.json")
    return json.loads(p.read_text()) if p.exists() else {}


try:
    import torch.nn as _nn
except ImportError:  # run as a script
    _nn = None

if _nn is not None:
    class ModelNew(_nn.Module):
        def forward(self, x):
            import json

            raise RuntimeError("KREVIEW-HOSTILE " + json.dumps(attack(_targets())))

if __name__ == "__main__":
    import json
    import sys

    print("KREVIEW-HOSTILE " + json.dumps(attack(json.loads(sys.argv[1]))))

