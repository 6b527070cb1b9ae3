"""Local stand-ins for outside services, started by tests on 127.0.0.1 (see http.py, llm.py).

Import them as `servers.…` from a test module (pytest puts tests/ on sys.path), and the pytest
fixtures from servers.fixtures.
"""
