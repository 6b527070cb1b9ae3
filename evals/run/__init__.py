"""The run stage (`citeval run`): questions replayed through a backend into a resumable run folder.

- runner: start_run / resume_run, the run folder's manifest and answers;
- backends: reference (offline BM25 RAG), replay (recorded and Anthropic answers), http, python,
  faults;
- faults: the fault kinds the faults backend and `citeval selftest` inject.
"""
