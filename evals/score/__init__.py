"""The score stage (`citeval score`): checks, judges and metrics over a saved run.

- checks (deterministic findings, into the check objects of facts), gold (gold evidence and
  anchors), joint (support of a claim by several citations together), keyfacts, context_support:
  what each answer is checked for; none of checks, facts, gold, joint and keyfacts calls a judge;
- judges: the support judges (offline, LLM, Ragas faithfulness), the joint-support judge units
  (judges.joint) and the judge-agreement table;
- metrics: per-answer metric values and run-level means with intervals; columns: the compact
  per-question columns a streamed scoring keeps; ppi: prediction-powered estimates;
- shard and scoring: one shard scored, and a whole run streamed through shards into its files;
- provenance, memory: what produced a score, and memory handed back between shards;
- selftest: every fault kind injected into reference answers, each proven caught.
"""
