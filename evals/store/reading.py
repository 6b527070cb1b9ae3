"""One reading layer for every input file: text, JSON, JSONL, TOML, CSV and Parquet.

Every reader turns whatever a file holds into Python values or a DataError that names the
file, the line and (where known) the field — never a traceback:

- bytes are decoded as strict UTF-8; the error names the line of the first bad byte. A BOM
  at the start is accepted and dropped. Line ends are kept as they are (a registry text
  that really holds CR LF is read exactly).
- JSON is parsed with limits (nesting depth, digits of a number, bytes of a line; see
  `JsonLimits`, also set through CITEVAL_JSON_MAX_DEPTH, CITEVAL_JSON_MAX_NUMBER_DIGITS and
  CITEVAL_JSON_MAX_LINE_BYTES), duplicate keys are refused, NaN and Infinity are refused
  (DESIGN: no NaN), and a lone UTF-16 surrogate escape ("\\ud800", valid JSON but no text) is
  refused — it could never be written back as UTF-8.
- files are opened here and in evals.store.atomic only (the architecture test counts the
  modules that open files): `read_file_bytes` / `read_file_text` read a whole file,
  `open_binary` gives a reader library (pdfplumber, tarfile) or a seeking index its handle,
  `file_sha256` hashes files streamed.
- `torn_line` is the one rule for the unended last line of a file that is appended to.
"""

from __future__ import annotations

import csv
import functools
import hashlib
import io
import json
import math
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from evals.errors import DataError

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True)
class JsonLimits:
    """Bounds on one JSON document (or JSONL line); each a DataError when passed."""

    max_depth: int = 200  # below Python's recursion limit, far above any contract record
    max_number_digits: int = 1000  # Python itself refuses integers over 4,300 digits
    max_line_bytes: int = 64 * 1024 * 1024
    max_file_bytes: int = 1 << 30  # a whole file read at once (a JSON document, TOML, CSV, a text)

    @classmethod
    def from_env(cls) -> JsonLimits:
        def number(name: str, default: int) -> int:
            value = os.environ.get(name, "").strip()
            return int(value) if value.isdigit() and int(value) > 0 else default

        base = cls()
        return cls(
            max_depth=number("CITEVAL_JSON_MAX_DEPTH", base.max_depth),
            max_number_digits=number("CITEVAL_JSON_MAX_NUMBER_DIGITS", base.max_number_digits),
            max_line_bytes=number("CITEVAL_JSON_MAX_LINE_BYTES", base.max_line_bytes),
            max_file_bytes=number("CITEVAL_MAX_FILE_BYTES", base.max_file_bytes),
        )


def _limits(limits: JsonLimits | None) -> JsonLimits:
    return limits if limits is not None else JsonLimits.from_env()


# --- bytes → text ---------------------------------------------------------------------


def _open_error(path: Path, exc: OSError) -> DataError:
    if isinstance(exc, FileNotFoundError):
        return DataError(path, None, "file not found")
    if isinstance(exc, IsADirectoryError):
        return DataError(path, None, "is a folder, not a file")
    if isinstance(exc, PermissionError):
        return DataError(path, None, "permission denied")
    return DataError(path, None, f"cannot read: {exc.strerror or exc}")


def _open_error_named(path: Path, exc: OSError, missing: str) -> DataError:
    return DataError(path, None, missing) if isinstance(exc, FileNotFoundError) else _open_error(path, exc)


NOT_REGULAR = "is not a regular file (a FIFO, a device or a socket): give a file"


def _open_regular(path: Path, missing: str) -> int:
    """A read descriptor on a regular file: never blocks on a FIFO (opened O_NONBLOCK, then
    checked), never reads a device such as /dev/zero; a DataError naming the path otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise _open_error_named(path, exc, missing) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise DataError(path, None, "is a folder, not a file")
        if not stat.S_ISREG(mode):
            raise DataError(path, None, NOT_REGULAR)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_file_bytes(path: Path | str, *, missing: str = "file not found", limits: JsonLimits | None = None) -> bytes:
    """A whole file's bytes; a file that cannot be read is a DataError naming it (`missing`: the
    message when it does not exist, e.g. "gates file not found"), and so is one that is not a
    regular file or is larger than the limit (`JsonLimits.max_file_bytes`)."""
    path = Path(path)
    cap = _limits(limits).max_file_bytes
    with os.fdopen(_open_regular(path, missing), "rb") as handle:
        try:
            data = handle.read(cap + 1)
        except OSError as exc:
            raise _open_error(path, exc) from None
    if len(data) > cap:
        raise DataError(path, None, f"larger than {cap} bytes, the most citeval reads of one file "
                        "(CITEVAL_MAX_FILE_BYTES)")
    return data


def read_file_head(path: Path | str, size: int) -> bytes:
    """The first `size` bytes of a file (all of a shorter one), to tell its format by."""
    with open_binary(path) as handle:
        return handle.read(size)


def open_binary(path: Path | str, *, missing: str = "file not found") -> io.BufferedReader:
    """A binary read handle on a regular file, for readers that take one (pdfplumber, tarfile,
    seeking indexes); a file that cannot be opened, or is no regular file, is a DataError naming
    it. Use it in a `with`."""
    path = Path(path)
    handle = os.fdopen(_open_regular(path, missing), "rb")
    assert isinstance(handle, io.BufferedReader)
    return handle


def path_sha256(path: Path | str) -> str:
    """file_sha256 of a file; of a folder (a Hugging Face dataset), the sha256 of each file's path
    inside it and its bytes, in name order, so renaming or changing any file changes it."""
    path = Path(path)
    if not path.is_dir():
        return file_sha256(path)
    digest = hashlib.sha256()
    for item in sorted(p for p in path.rglob("*") if p.is_file()):
        digest.update(item.relative_to(path).as_posix().encode("utf-8") + b"\0")
        digest.update(bytes.fromhex(file_sha256(item)))
    return digest.hexdigest()


def file_sha256(*paths: Path | str, skip_missing: bool = False) -> str:
    """The sha256 of the files' bytes, one after another, streamed (skip_missing: a file that does
    not exist adds nothing, e.g. a registry without chunks yet)."""
    digest = hashlib.sha256()
    for path in paths:
        if skip_missing and not Path(path).exists():
            continue
        with open_binary(path) as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def unended_last_line(path: Path | str) -> tuple[int, bytes]:
    """(offset, bytes) of a last line that lacks its newline — what a kill or a writer still at
    work leaves — read back from the end however long the file; (size, b"") when the file ends
    with a newline or is empty."""
    with open_binary(path) as handle:
        end = handle.seek(0, 2)
        if not end:
            return 0, b""
        handle.seek(end - 1)
        if handle.read(1) == b"\n":
            return end, b""
        tail, start = b"", end
        while start > 0 and b"\n" not in tail:
            start = max(0, start - (1 << 16))
            handle.seek(start)
            tail = handle.read(end - start)
        cut = tail.rfind(b"\n") + 1
        return start + cut, tail[cut:]


def decode_text(data: bytes, path: Path | str, first_line: int = 1) -> str:
    """Strict UTF-8 (a leading BOM dropped); a bad byte is a DataError naming its line."""
    if first_line == 1 and data.startswith(BOM):
        data = data[len(BOM):]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = first_line + data.count(b"\n", 0, exc.start)
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise DataError(
            path, line, f"not UTF-8 text: byte 0x{data[exc.start]:02x} at column {column} ({exc.reason})"
        ) from None


def read_file_text(path: Path | str, *, missing: str = "file not found") -> str:
    """A whole text file, decoded strictly, line ends kept exactly as written."""
    return decode_text(read_file_bytes(path, missing=missing), path)


def try_read_json(path: Path | str) -> Any:
    """A JSON document read for context only (a marker, an earlier push's record): None when the
    file is missing or does not parse — the caller carries on without it."""
    try:
        return parse_json(read_file_text(path), path)
    except DataError:
        return None


# --- JSON -----------------------------------------------------------------------------

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class _JsonProblem(ValueError):
    pass


def _refuse_constant(name: str) -> Any:
    raise _JsonProblem(f"{name} is not a number JSON allows (no NaN or Infinity)")


def _pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _JsonProblem(f"duplicate key {key!r}")
            seen.add(key)
    return obj


def _depth_and_surrogates(value: Any, max_depth: int, find_surrogates: bool) -> str | None:
    """The first problem an iterative walk finds: nesting over max_depth or a lone surrogate.
    A place is kept as a (parent, key) link and spelled out only for the problem, so the walk
    costs one tuple an item (a line with 40,000 citations holds 300,000 of them)."""
    Place = tuple[Any, Any] | None
    stack: list[tuple[Any, int, Place]] = [(value, 1, None)]
    while stack:
        item, depth, place = stack.pop()
        if isinstance(item, dict):
            if depth > max_depth:
                return f"nested deeper than {max_depth} levels"
            for key, child in item.items():
                if find_surrogates and _LONE_SURROGATE.search(key):
                    return f"{_place_name((place, key))}: key holds a lone UTF-16 surrogate (not text)"
                stack.append((child, depth + 1, (place, key)))
        elif isinstance(item, list):
            if depth > max_depth:
                return f"nested deeper than {max_depth} levels"
            stack.extend((child, depth + 1, (place, i)) for i, child in enumerate(item))
        elif find_surrogates and isinstance(item, str) and _LONE_SURROGATE.search(item):
            return f"{_place_name(place) or 'value'}: holds a lone UTF-16 surrogate escape (not text)"
    return None


def _place_name(place: tuple[Any, Any] | None) -> str:
    """`a.b[3].c` from the walk's (parent, key) links."""
    parts: list[str] = []
    while place is not None:
        place, key = place
        parts.append(f"[{key}]" if isinstance(key, int) else (f".{key}" if place is not None else str(key)))
    name = "".join(reversed(parts))
    return name[1:] if name.startswith(".") else name


@functools.lru_cache(maxsize=8)
def _decoders(max_digits: int) -> tuple[re.Pattern[str], json.JSONDecoder, json.JSONDecoder]:
    """For a digit limit: the pattern of a digit run over it, the common decoder (floats checked:
    they are rare, and 1e999 must not become inf) and the one that also checks every integer,
    used only where such a run occurs. A decoder made per call would cost more than the parse."""

    def checked_float(digits: str) -> float:
        if len(digits) > max_digits:
            raise _JsonProblem(f"a number longer than {max_digits} digits")
        value = float(digits)
        if math.isinf(value):
            raise _JsonProblem(f"number {digits[:40]} is too large for a float")
        return value

    def checked_int(digits: str) -> int:
        if len(digits.lstrip("-")) > max_digits:
            raise _JsonProblem(f"a number longer than {max_digits} digits")
        return int(digits)

    common = json.JSONDecoder(
        object_pairs_hook=_pairs_hook, parse_constant=_refuse_constant, parse_float=checked_float
    )
    strict = json.JSONDecoder(
        object_pairs_hook=_pairs_hook, parse_constant=_refuse_constant, parse_float=checked_float,
        parse_int=checked_int,
    )
    return re.compile(f"[0-9]{{{max_digits + 1}}}"), common, strict


def parse_json(text: str, path: Path | str, line: int | None = None, limits: JsonLimits | None = None) -> Any:
    """One JSON document within the limits; any problem is a DataError at path:line."""
    limits = _limits(limits)
    long_run, common, strict = _decoders(limits.max_number_digits)
    decoder = strict if long_run.search(text) else common
    try:
        value = decoder.decode(text)
    except json.JSONDecodeError as exc:
        # a JSONL line is one line: its trailing newline must not move the error to the next one
        where = line if line is not None else exc.lineno
        raise DataError(path, where, f"invalid JSON: {exc.msg} at column {exc.colno}") from None
    except _JsonProblem as exc:
        raise DataError(path, line, f"invalid JSON: {exc}") from None
    except RecursionError:
        raise DataError(path, line, f"invalid JSON: nested deeper than {limits.max_depth} levels") from None
    except ValueError as exc:  # e.g. Python's own integer-length limit
        raise DataError(path, line, f"invalid JSON: {exc}") from None
    containers = text.count("{") + text.count("[")
    find_surrogates = _SURROGATE_ESCAPE.search(text) is not None
    if containers > limits.max_depth or find_surrogates:
        problem = _depth_and_surrogates(value, limits.max_depth, find_surrogates)
        if problem:
            raise DataError(path, line, f"invalid JSON: {problem}")
    return value


def read_json(path: Path | str, limits: JsonLimits | None = None) -> Any:
    """A whole JSON file (not JSONL)."""
    return parse_json(read_file_text(path), path, None, limits)


def read_json_object(path: Path | str, what: str = "a JSON object", limits: JsonLimits | None = None) -> dict[str, Any]:
    value = read_json(path, limits)
    if not isinstance(value, dict):
        raise DataError(path, None, f"expected {what}, got {json_type(value)}")
    return value


def json_type(value: Any) -> str:
    """The JSON name of a parsed value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


def iter_raw_lines(path: Path | str, limits: JsonLimits | None = None) -> Iterator[tuple[int, bytes]]:
    """(line number, bytes with their newline) for each line; a line over the byte limit is a DataError."""
    limits = _limits(limits)
    path = Path(path)
    with open_binary(path) as handle:
        lineno = 0
        while True:
            raw = handle.readline(limits.max_line_bytes + 1)
            if not raw:
                return
            lineno += 1
            if len(raw) > limits.max_line_bytes and not raw.endswith(b"\n"):
                raise DataError(path, lineno, f"line longer than {limits.max_line_bytes} bytes")
            yield lineno, raw


def iter_lines(path: Path | str, limits: JsonLimits | None = None) -> Iterator[tuple[int, str, bool]]:
    """(line number, text, ended with a newline) for each line, each decoded strictly on its own,
    so a file of any size streams."""
    for lineno, raw in iter_raw_lines(path, limits):
        yield lineno, decode_text(raw, path, lineno), raw.endswith(b"\n")


def iter_json_objects(
    path: Path | str, limits: JsonLimits | None = None, on_error: Callable[[DataError], None] | None = None
) -> Iterator[tuple[int, Any, bool]]:
    """(line number, parsed value, ended with a newline) for each non-blank JSONL line. A bad line
    raises, or goes to on_error and the next line is read."""
    limits = _limits(limits)
    for lineno, raw in iter_raw_lines(path, limits):
        try:
            text = decode_text(raw, path, lineno)
            if not text.strip():
                continue
            value = parse_json(text, path, lineno, limits)
        except DataError as error:
            if on_error is None:
                raise
            on_error(error)
            continue
        yield lineno, value, raw.endswith(b"\n")


def torn_line(line: bytes, path: Path | str, lineno: int | None = None) -> bool:
    """The one rule for the last line of a file that is appended to (answers.jsonl): a last line
    without its newline is torn (cut by a kill, or still being written) when it does not parse as
    a JSON object; one that does is complete and only lacks its newline."""
    try:
        return not isinstance(parse_json(decode_text(line, path, lineno or 2), path, lineno), dict)
    except DataError:
        return True



# --- TOML -----------------------------------------------------------------------------


def parse_toml(text: str, path: Path | str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        line = int(match.group(1)) if match else None
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise DataError(path, line, f"invalid TOML: {message}") from None
    except RecursionError:
        raise DataError(path, None, "invalid TOML: nested too deep") from None


def read_toml(path: Path | str) -> dict[str, Any]:
    return parse_toml(read_file_text(path), path)


@dataclass(frozen=True)
class TomlDocument:
    """A TOML file as read: its path, text (a BOM dropped, CR LF folded), parsed tables and the
    sha256 of its bytes (what a run records of a settings file)."""

    path: Path
    text: str
    data: dict[str, Any]
    sha256: str

    def line(self, section: list[str], key: str | None) -> int | None:
        """See `toml_line`."""
        return toml_line(self.text, section, key)


def read_toml_document(path: Path | str, *, missing: str = "file not found") -> TomlDocument:
    """A TOML file with what an error about one of its keys needs (its text) and its sha256."""
    data = read_file_bytes(path, missing=missing)
    text = decode_text(data, path).replace("\r\n", "\n")
    return TomlDocument(Path(path), text, parse_toml(text, path), hashlib.sha256(data).hexdigest())


# where a key sits in a TOML file (tomllib keeps no positions)
_TOML_HEADER = re.compile(r"^\s*\[{1,2}\s*([^\]]+?)\s*\]{1,2}\s*(#.*)?$")
_TOML_KEY = re.compile(r"""^\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_.-]+))\s*=""")


def _toml_dotted(text: str) -> list[str]:
    return [p.strip().strip("\"'") for p in re.findall(r'"[^"]*"|\'[^\']*\'|[^.]+', text)]


def toml_line(text: str, section: list[str], key: str | None) -> int | None:
    """The line of `key` inside the table `[section]` (`[]`: the top level), or of the table's
    header when key is None; a table written as a top-level key (`run = {…}`) is found by that
    key. None when the file does not spell it on a line of its own."""
    current: list[str] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        header = _TOML_HEADER.match(line)
        if header:
            current = _toml_dotted(header.group(1))
            if current == (section if key is None else [*section, key]):
                return lineno  # the table itself, or the table `key` names
            continue
        found = _TOML_KEY.match(line)
        if not found:
            continue
        name = next(group for group in found.groups() if group is not None)
        spelled = [*current, *_toml_dotted(name)] if found.group(3) else [*current, name]
        if key is not None and spelled[: len(section) + 1] == [*section, key]:
            return lineno
        if key is None and section and spelled == section:  # the table as an inline table
            return lineno
    return None


# --- tables ---------------------------------------------------------------------------


def iter_csv_rows(path: Path | str) -> Iterator[tuple[int, dict[str, str]]]:
    """(line where the row starts, {column: cell}) for each data row; a row whose cell count is
    not the header's, a repeated or blank column name, or a broken quote is a DataError."""
    text = read_file_text(path)
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
        if header is None:
            return
        names = [name.strip() for name in header]
        if any(not name for name in names):
            raise DataError(path, 1, "a column without a name in the header")
        duplicate = next((n for i, n in enumerate(names) if n in names[:i]), None)
        if duplicate is not None:
            raise DataError(path, 1, f"column {duplicate!r} appears twice in the header")
        start = reader.line_num + 1
        for cells in reader:
            if not any(cell.strip() for cell in cells):
                start = reader.line_num + 1
                continue
            if len(cells) != len(names):
                raise DataError(path, start, f"{len(cells)} cell(s) where the header has {len(names)}")
            yield start, dict(zip(names, cells, strict=True))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise DataError(path, reader.line_num or None, f"invalid CSV: {exc}") from None


def _plain(value: Any) -> Any:
    """A Parquet cell as plain JSON-like Python: lists, dicts, str, numbers, None (NaN → None)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(item, tuple) and len(item) == 2 for item in value):
            return {str(k): _plain(v) for k, v in value}  # a map column
        return [_plain(item) for item in value]
    if isinstance(value, bytes):
        return decode_text(value, "(parquet cell)")
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    return value


def iter_parquet_rows(path: Path | str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(row number from 1, {column: value}) for each row of a Parquet file."""
    path = Path(path)
    if not path.is_file():
        raise DataError(path, None, "file not found")
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
        rows = table.to_pylist()
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many types for a corrupt file
        raise DataError(path, None, f"not a readable Parquet file ({type(exc).__name__}: {exc})"[:300]) from None
    for index, row in enumerate(rows, 1):
        try:
            yield index, {str(k): _plain(v) for k, v in row.items()}
        except DataError as exc:
            raise DataError(path, index, exc.message) from None
