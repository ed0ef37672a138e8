"""The one errors module.

Every failure the reviewer itself can meet maps to an exception here with a stable ``status`` string.
The CLI turns ``status`` into an exit code and a message; tests assert on ``status``, never on message
text. Failures *of the submission* are not exceptions: they are evidence (see ``reviewer.core.models``).
"""

from __future__ import annotations


class KReviewError(Exception):
    """Base of every error the reviewer raises on purpose."""

    status: str = "reviewer_error"
    exit_code: int = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message if not self.hint else f"{self.message}\nhint: {self.hint}"


class UsageError(KReviewError):
    """Bad command line or configuration given by the user."""

    status = "usage_error"
    exit_code = 2


class IngestError(UsageError):
    """The directory is not a submission in any format the reviewer reads."""

    status = "not_a_submission"


class ManifestError(UsageError):
    """``kreview.toml`` exists but does not validate."""

    status = "bad_manifest"


class RubricError(UsageError):
    """A rubric file does not validate (unknown rule, unknown criterion, bad YAML)."""

    status = "bad_rubric"


class PromptError(KReviewError):
    """A prompt template is missing, or rendering it referenced an undefined variable."""

    status = "bad_prompt"


class MissingExtra(UsageError):
    """The command needs an optional extra that is not installed (the message says which to install)."""

    status = "missing_extra"


class ConfigError(UsageError):
    """A configuration file or environment setting does not validate."""

    status = "bad_config"


class RunNotFound(UsageError):
    """``kreview show``/``signoff`` named a run that does not exist."""

    status = "run_not_found"


class SignoffError(UsageError):
    """A sign-off was asked for a run that is not waiting for one."""

    status = "not_awaiting_signoff"


class ToolError(KReviewError):
    """A concrete tool failed in a way that is our bug or our environment, not the submission's."""

    status = "tool_error"


class LLMError(KReviewError):
    """The language model could not be reached or kept answering unusable output."""

    status = "llm_error"


class LLMTimeout(LLMError):
    """The model did not answer within the timeout, retries included."""

    status = "llm_timeout"


class LLMRejected(LLMError):
    """The server refused the request itself (HTTP 400/422), e.g. an unsupported response_format."""

    status = "llm_rejected"


class GitHubError(KReviewError):
    """A GitHub API call failed."""

    status = "github_error"


class CalibrationError(UsageError):
    """An eval set or one of its cases is malformed."""

    status = "bad_eval_set"


class SanitizerIncompatible(ToolError):
    """The installed Triton's interpreter internals differ from those the CPU sanitizer hooks.

    Raised before anything is patched; the memcheck evidence becomes ``unverified``."""

    status = "sanitizer_incompatible"


class SandboxUnavailable(UsageError):
    """Submission code would have to run without the sandbox (no bubblewrap, no user namespaces, no
    seccomp): refused unless the user passes ``--unsafe-no-sandbox``."""

    status = "sandbox_unavailable"


class UnsafeSubmissionFile(UsageError):
    """The submission directory holds a symlink, a device, a FIFO or an oversized file, or a manifest
    points outside the directory."""

    status = "unsafe_submission_file"


class ReviewTerminated(BaseException):
    """SIGTERM arrived during a review (a CI cancel). A ``BaseException`` like ``KeyboardInterrupt``,
    so that no tool's ``except Exception`` turns it into evidence: it unwinds the whole review, whose
    ``finally`` blocks stop the sandboxes and remove their folders."""

    exit_code = 143


class BatchError(KReviewError):
    """A batch review could not run a review on the node that got it (not a kernel's failure)."""

    status = "batch_error"
