"""The store layer: the one reader and the one writer of citeval's files.

- reading: every input file decoded and parsed within limits, errors naming file and line;
- atomic: every write whole or not at all, inside the folder it belongs to;
- jsonl: JSON lines and questions files on top of the two;
- runfolder: the run folder's file list and its one reader (`RunFolder`);
- answerindex: where each answer line stands in a large answers.jsonl;
- perquestion: per_question rows as Parquet;
- bundle: a scored run packed into one portable archive and read back safely.
"""
