"""`citeval schema NAME`: the JSON Schema of a contract, generated from its pydantic model."""

from __future__ import annotations

from typing import Annotated

import typer

from citeval_cli.common import handles_errors, print_json, say
from evals.contract.schema import json_schema, schema_names


@handles_errors
def schema(
    name: Annotated[str | None, typer.Argument(help=f"One of: {', '.join(schema_names())}.")] = None,
) -> None:
    """Print the JSON Schema of a contract (a file line, a record or a whole file); without NAME, the names.

    Example: citeval schema answer
    Example: citeval schema config
    """
    if name is None:
        say("".join(f"{known}\n" for known in schema_names()), nl=False)
        return
    print_json(json_schema(name))  # an unknown NAME: exit 2 naming the known ones
