"""The contract layer: what citeval writes and reads, typed.

- models: the dataset, answer, judgment, finding and manifest records (DESIGN 2-5);
- scores: scores.json and per_question rows (DESIGN 6);
- precedence: which label of a unit counts (DESIGN 5: adjudicated > human > auto).

Every stage reads these; nothing here reads or writes a file or imports a stage.
"""
