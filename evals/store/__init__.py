"""The store layer: the one reader and the one writer of citeval's files.

- reading: every input file decoded and parsed within limits, errors naming file and line;
  binary handles for reader libraries (pdfplumber, tarfile);
- atomic: every write whole or not at all, inside the folder it belongs to; lines appended
  whole; the one folder swap (`staged_folder`, `swap_in`);
- jsonl: JSON lines and questions files on top of the two;
- answers: the one parser of an answers.jsonl line and the one rule for a torn last line;
- runfolder: the run folder's file names, its one reader (`RunFolder`) and the score set;
- answerindex: where each answer line stands in a large answers.jsonl;
- quotes: quotes files (DESIGN 9) read into the contract's models, errors naming file and line;
- perquestion: per_question rows as Parquet;
- secrets: the one secret scrubber (one marker, "***");
- bundle: a scored run packed into one portable archive and read back safely.

Only reading, atomic and bundle (tarfile on their handles) open files themselves; every other
module of evals/ reads and writes through them.
"""
