"""Labelled user prompts for the decision detector: (prompt, is_decision, kind).

A decision is a correction or a standing preference the agent must keep following.
Plain requests, questions, bug descriptions and pasted logs are not, even with commas.
"""

from __future__ import annotations

LABELLED: list[tuple[str, bool, str]] = [
    # ---- corrections (decisions)
    ("No, use pytest fixtures instead of setUp methods.", True, "correction"),
    ("Use httpx instead of requests for the client.", True, "correction"),
    ("Don't add comments to every line, it's noisy.", True, "correction"),
    ("That's wrong, the config lives in pyproject.toml, not setup.cfg.", True, "correction"),
    ("Actually, switch to SQLite for the cache, Redis is overkill here.", True, "correction"),
    ("Stop using print for debugging and use the logger.", True, "correction"),
    ("Please don't touch the migrations folder.", True, "correction"),
    ("Not like that. Keep the public API unchanged and add a new function.", True, "correction"),
    ("Revert the rename, and use snake_case for the new helpers instead.", True, "correction"),
    ("Could you use dataclasses instead of plain dicts here?", True, "correction"),
    ("Let's go with the second option, the streaming parser.", True, "correction"),
    ("Do not mock the database in these tests, use a temp SQLite file.", True, "correction"),
    ("nope, leave the README alone", True, "correction"),
    ("Try a generator instead, the list is huge.", True, "correction"),
    # ---- standing preferences (decisions)
    ("From now on, run ruff before every commit.", True, "preference"),
    ("Always write type hints for public functions.", True, "preference"),
    ("Never commit directly to main.", True, "preference"),
    ("I prefer small focused commits over one big commit.", True, "preference"),
    ("Going forward, put new tests under tests/unit.", True, "preference"),
    ("We use tabs in the Makefile and spaces everywhere else.", True, "preference"),
    ("By default, answer in English even if I write in German.", True, "preference"),
    ("Only use the standard library in the hook module.", True, "preference"),
    ("Avoid global state in the new module.", True, "preference"),
    ("ok, and from here on keep responses short", True, "preference"),
    ("I'd rather keep the old CLI flags for compatibility.", True, "preference"),
    ("You should always run the full test suite after touching the parser.", True, "preference"),
    # ---- other languages (decisions)
    ("Verwende bitte stattdessen pathlib.", True, "de"),
    ("Ab jetzt bitte immer die Tests laufen lassen.", True, "de"),
    ("N'utilise pas de variables globales.", True, "fr"),
    ("À partir de maintenant, écris les commentaires en anglais.", True, "fr"),
    ("Usa async en lugar de hilos.", True, "es"),
    ("Nunca hagas push a main sin revisión.", True, "es"),
    ("Use sempre aspas duplas nas strings, em vez de simples.", True, "pt"),
    ("Не используй eval в этом коде.", True, "ru"),
    ("今後はテストを先に書いてください。", True, "ja"),
    ("print は使わないでください。", True, "ja"),
    ("以后不要再用 print 调试，改用 logging。", True, "zh"),
    ("不要修改公共接口。", True, "zh"),
    # ---- plain requests (not decisions)
    ("Fix the failing test in parser.py", False, "request"),
    ("Add a --verbose flag to the CLI, with a short help text.", False, "request"),
    ("Refactor the config loader, it is getting long.", False, "request"),
    ("Write tests for the tokenizer, the lexer and the parser.", False, "request"),
    ("Implement pagination for the /users endpoint", False, "request"),
    ("Rename fetch_data to load_records across the codebase", False, "request"),
    ("Update the changelog, then bump the version to 1.4.0.", False, "request"),
    ("Run the benchmarks and summarise the results in a table.", False, "request"),
    ("Create a Dockerfile for the service, based on python:3.12-slim.", False, "request"),
    ("Make the error message clearer when the file is missing.", False, "request"),
    ("Don't forget to update the docs when you're done.", False, "request"),
    ("Bitte füge einen Test für den Parser hinzu.", False, "de-request"),
    ("Ajoute une option --dry-run à la commande.", False, "fr-request"),
    ("Agrega validación al formulario de registro, por favor.", False, "es-request"),
    ("パーサーのテストを追加してください。", False, "ja-request"),
    ("帮我给这个函数加上单元测试。", False, "zh-request"),
    ("Добавь обработку ошибок в загрузчик.", False, "ru-request"),
    # ---- questions (not decisions)
    ("Why does the parser fail on empty input?", False, "question"),
    ("Should we use asyncio here, or is threading enough?", False, "question"),
    ("What's the difference between the two cache layers?", False, "question"),
    ("How do I run only the slow tests?", False, "question"),
    ("Is it better to use a dict instead of a list here?", False, "question"),
    ("Why did you use a regex instead of split?", False, "question"),
    ("Can you explain how the retry logic works?", False, "question"),
    ("Warum schlägt der Build fehl?", False, "de-question"),
    ("¿Por qué el test falla en CI?", False, "es-question"),
    ("なぜこのテストは失敗するのですか？", False, "ja-question"),
    ("这个函数为什么这么慢？", False, "zh-question"),
    # ---- bug descriptions and facts (not decisions)
    ("The function returns None instead of raising, which breaks the caller.", False, "bug"),
    ("The test always fails on CI, but passes locally.", False, "bug"),
    ("It never finishes when the input has a trailing newline.", False, "bug"),
    ("I don't know why, but the import is slow.", False, "bug"),
    ("The login page shows a blank screen after the redirect, see the console.", False, "bug"),
    # ---- pasted logs (not decisions)
    (
        'Here is the output:\n```\nTraceback (most recent call last):\n  File "app.py", line 3\n'
        "    raise ValueError('never use this')\nValueError: never use this\n```",
        False,
        "log",
    ),
    (
        "2026-11-30 10:01:02,113 ERROR worker: don't retry, giving up\n"
        "2026-11-30 10:01:02,114 INFO worker: always restarting",
        False,
        "log",
    ),
    (
        "npm ERR! code ERESOLVE\nnpm ERR! Could not resolve dependency, use --force instead\n",
        False,
        "log",
    ),
    ("FAILED tests/test_api.py::test_login - AssertionError: never reached", False, "log"),
    (
        "test output:\n    at Object.<anonymous> (src/index.js:10:5)\n    at Module._compile (node:internal:1:1)",
        False,
        "log",
    ),
    # ---- more, written after the detector (held out while tuning)
    ("Please use f-strings, not .format()", True, "correction"),
    ("Next time ask before running migrations.", True, "preference"),
    ("No need for tests on this one", True, "preference"),
    ("Would you mind switching to yarn instead of npm?", True, "correction"),
    ("We don't use semicolons in this codebase.", True, "preference"),
    ("Merci, mais utilise plutôt la bibliothèque standard.", True, "fr"),
    ("Ensure the API returns 404 instead of 500 for missing users", False, "request"),
    ("The CLI prints the help text instead of running, weird.", False, "bug"),
    ("Add retries, and also make the timeout configurable.", False, "request"),
    ("I never got the email notification, check the mailer", False, "bug"),
    ("Could you explain why you used a set instead of a list?", False, "question"),
    ("It's a bug, not a feature, fix it", False, "request"),
    # ---- mixed: a correction around pasted output (decision)
    (
        "This fails:\n```\nKeyError: 'user'\n```\nDon't catch the KeyError, validate the payload first.",
        True,
        "correction+log",
    ),
]
