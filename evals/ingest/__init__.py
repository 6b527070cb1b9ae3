"""The ingest stage (`citeval data ingest`, `citeval init`): a registry built from editions.

- sources: the manifest of editions and the registry files written from it;
- pdf, docling, chunking: PDF and DoclingDocument text with pages and boxes, legal chunking;
- init: a skeleton dataset for a new team.
"""
