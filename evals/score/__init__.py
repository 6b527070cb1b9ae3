"""The score stage (`citeval score`): checks, judges and metrics over a saved run.

- checks (deterministic findings), gold (gold evidence and anchors), joint (support of a claim
  by several citations together), keyfacts, context_support: what each answer is checked for;
- judges: the support judges (offline, LLM, Ragas faithfulness) and the judge-agreement table;
- metrics: per-answer metric values and run-level means with intervals; columns: the compact
  per-question columns a streamed scoring keeps; ppi: prediction-powered estimates;
- shard and scoring: one shard scored, and a whole run streamed through shards into its files;
- provenance, memory: what produced a score, and memory handed back between shards;
- selftest: every fault kind injected into reference answers, each proven caught.
"""
