"""What a reference and a submission are, inside a child, whatever the submission format.

A *reference program* makes the inputs of a case and computes the expected outputs; a *submission
program* computes outputs from the same inputs. Formats register their pair under their name.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from tools.engine.harness.case import Case


@dataclass
class CaseData:
    """Inputs of one case: constructor arguments (KernelBench) and call inputs."""

    init: list[Any] = field(default_factory=list)
    inputs: list[Any] = field(default_factory=list)


class ReferenceProgram(ABC):
    format: ClassVar[str]

    def __init__(self, spec: dict[str, Any], device: str) -> None:
        self.spec = spec
        self.device = device

    @abstractmethod
    def make_case(self, case: Case) -> CaseData: ...

    @abstractmethod
    def run(self, case: Case, data: CaseData) -> Any: ...

    def check(self, data: CaseData, candidate: Any) -> dict[str, Any] | None:
        """The task's own checker, if the format has one. None when it has none."""
        return None

    def bind(self, case: Case, data: CaseData) -> Callable[[list[Any]], Any]:
        """A callable running on new inputs while keeping the state built once (a KernelBench model
        is constructed once), the way a benchmark loop calls it. Default: ``run`` per call."""
        return lambda inputs: self.run(case, CaseData(init=data.init, inputs=inputs))

    def model(self, case: Case, data: CaseData) -> Any:
        """The object whose parameters the reference computes with (a KernelBench ``Model``), built
        the way ``run`` builds it, for the task audit's parameter probes. None: the format has none."""
        return None


class SubmissionProgram(ABC):
    format: ClassVar[str]

    def __init__(self, spec: dict[str, Any], device: str) -> None:
        self.spec = spec
        self.device = device

    @abstractmethod
    def run(self, case: Case, data: CaseData) -> Any: ...

    def bind(self, case: Case, data: CaseData) -> Callable[[list[Any]], Any]:
        """A callable running on new inputs while keeping the state built once (a KernelBench model
        is constructed once), the way a benchmark loop calls it. Default: ``run`` per call."""
        return lambda inputs: self.run(case, CaseData(init=data.init, inputs=inputs))


REFERENCES: dict[str, type[ReferenceProgram]] = {}
SUBMISSIONS: dict[str, type[SubmissionProgram]] = {}


def register(ref: type[ReferenceProgram], sub: type[SubmissionProgram]) -> None:
    REFERENCES[ref.format] = ref
    SUBMISSIONS[sub.format] = sub
