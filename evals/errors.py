"""citeval's own exception types. The CLI maps each to a one-line message and an exit code."""

from __future__ import annotations


class CitevalError(Exception):
    """Base class of every error citeval raises on purpose."""

    exit_code = 2


class DataError(CitevalError):
    """A bad input record: names the file, the line and (where known) the field."""

    def __init__(self, path: object, line: int | None, message: str, field: str | None = None) -> None:
        self.path = str(path)
        self.line = line
        self.field = field
        self.message = message
        super().__init__(self.location() + ": " + (f"{field}: " if field else "") + message)

    def location(self) -> str:
        return f"{self.path}:{self.line}" if self.line is not None else self.path


class DataErrors(DataError):
    """Several problems of one input, each a DataError; the message is one line per problem
    (`path:line: field: message`), the attributes are the first problem's."""

    def __init__(self, problems: list[DataError]) -> None:
        first = problems[0]
        super().__init__(first.path, first.line, first.message, first.field)
        self.problems = list(problems)
        self.args = ("\n".join(str(problem) for problem in problems),)


class DatasetInvalid(CitevalError):
    """A dataset failed validation; carries every problem found."""

    def __init__(self, problems: list[DataError], total: int | None = None) -> None:
        self.problems = problems
        self.total = total if total is not None else len(problems)
        super().__init__(f"dataset has {self.total} problem(s); first: {problems[0] if problems else '-'}")


class UsageError(CitevalError):
    """Options or arguments that cannot work together."""


class BackendError(CitevalError):
    """The system under test or an outside service failed in a way the run cannot record."""

    exit_code = 3


class FolderBusy(CitevalError):
    """A folder another citeval process is writing (its lock is held): exit 2, naming the holder."""


class StoreError(CitevalError):
    """A file or folder the store could not write or read for a reason of the system (disk full,
    read-only, no inode, a name too long): names the path and what to free. exit_code 2, or 3
    when the store is an outside service's."""

    def __init__(self, path: object, message: str, exit_code: int = 2) -> None:
        self.path = str(path)
        self.message = message
        self.exit_code = exit_code
        super().__init__(f"{self.path}: {message}")

    def __reduce__(self) -> tuple[type[StoreError], tuple[str, str, int]]:  # to cross to a worker and back
        return (StoreError, (self.path, self.message, self.exit_code))
