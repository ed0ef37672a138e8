"""What the interpreter raises, with the wording a user of the real toolchain would see.

Messages marked ``documented=True`` follow the text of the NKI error reference or programming model
for the pinned version (``tools.engine.nki.version.PAGES``); the others are the reviewer's wording for a rule
the documentation states without quoting the compiler's message. Every raised error is recorded
first (``recorder.violation``) so the reviewer can report it with its kernel source line.
"""

from __future__ import annotations

from tools.engine.nki.version import PAGES, SDK_VERSION, UNSUPPORTED_MARK


class NkiUnsupported(NotImplementedError):
    """A feature of NKI this interpreter does not model: the check is unverified, not failed."""

    def __init__(self, what: str) -> None:
        super().__init__(f"{what} is {UNSUPPORTED_MARK} (NKI {SDK_VERSION} semantics); "
                         "run the review where the Neuron SDK is installed")
        self.what = what


def errors_page(code: str) -> str:
    return f"{PAGES['errors']}#nki-errors-{code.replace('_', '-')}"


def make_error(code: str, message: str, *, exc_type: type[BaseException] = SyntaxError,
               documented: bool, doc: str | None = None) -> BaseException:
    """An exception of ``exc_type`` carrying the NKI error code and where its wording comes from."""
    exc = exc_type(message)
    exc.nki_code = code  # type: ignore[attr-defined]
    exc.nki_documented = documented  # type: ignore[attr-defined]
    exc.nki_doc = doc or (errors_page(code) if code.startswith("err_") else PAGES["programming_model"])  # type: ignore[attr-defined]
    return exc


class NkiUnsupportedName(NkiUnsupported, AttributeError):
    """A name of the NKI API the interpreter lacks (``hasattr`` sees it as absent)."""
