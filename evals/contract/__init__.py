"""The contract layer: what citeval writes and reads, typed.

- models: the dataset, answer, judgment, finding and manifest records (DESIGN 2-5);
- scores: scores.json and per_question rows (DESIGN 6);
- precedence: which label of a unit counts (DESIGN 5: adjudicated > human > auto);
- metrics: the one metric table (name, direction, aggregation, unit, description, function);
- findings: the one findings table (code, severity, description, the checks that emit it);
- qualname: the stage functions those tables name, looked up on first use.

Every stage reads these; nothing here reads or writes a file or imports a stage.
"""
