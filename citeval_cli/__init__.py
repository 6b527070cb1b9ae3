"""citeval's command line (DESIGN 7): thin typer commands over the evals library, one module per
command group. It lives beside evals/, not in it: the CLI prints and exits, the library never does.
The typer app is `citeval_cli.app.app` (the console script enters through the `cli.py` shim)."""
