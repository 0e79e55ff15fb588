"""Events from one user prompt (UserPromptSubmit): the request itself and what it decides.

A *decision* is a correction or a standing preference ("use X instead", "don't ...",
"always ...", "from now on ..."), not any sentence with a comma (the reference's rule).
Only the prose is read: pasted logs, code blocks and stack traces are set aside first.
Questions are not decisions unless they are polite corrections ("can you use X instead?").
Pure functions; `re` is imported here, off the PostToolUse path.
"""

from __future__ import annotations

import re

from ctxmode.session.model import CRITICAL, HIGH, LOW, NORMAL, Captured, clip, one_line

SYNTHETIC_PREFIXES = (
    "<task-notification>", "<system-reminder>", "<context_guidance>", "<tool-result>",
    "<local-command-stdout>", "<command-message>", "<user-prompt-submit-hook>",
)  # fmt: skip
DATA_PROMPT_CHARS = 1_024
QUESTION_MARKS = "?？؟¿"

# A standing preference, whatever the sentence's shape.
_STANDING = re.compile(
    r"\b(from now on|going forward|from here on|in (the )?future|by default|as a rule|"
    r"every time|each time|no more|stop (using|doing|adding|writing|calling)|"
    r"i('d| would) rather|i prefer|we prefer|prefer(ably)? (to )?|rather than|"
    r"instead|don'?t ever|never ever|next time)\b|, not "
    r"|ab jetzt|von nun an|künftig|stattdessen|\bstatt\b|lieber|\bniemals\b|"
    r"à partir de maintenant|désormais|dorénavant|au lieu de|plutôt|je préfère|"
    r"a partir de ahora|de ahora en adelante|en lugar de|en vez de|prefiero|"
    r"a partir de agora|daqui pra frente|em vez de|ao invés de|prefiro|"
    r"с этого момента|отныне|вместо|лучше использ|"
    r"今後|これからは|以後|代わりに|ではなく|じゃなくて|"
    r"以后|今后|从现在开始|从现在起|改用|而不是|不要再|别再|"
    r"앞으로|대신",
    re.IGNORECASE,
)
# Directive openings: the clause itself is an order about how to work.
_DIRECTIVE_START = re.compile(
    r"^(always|never|don'?t|do not|dont|please don'?t|please do not|please never|please always|"
    r"avoid|stop|keep (it|them|using|the)|stick (to|with)|only (use|change|touch|edit|modify)|"
    r"make sure (you|to) (always|never|don'?t)|switch to|let'?s (use|go with|stick|switch|keep|not)|"
    r"we (use|don'?t use|always|never|should always|should never|should use|should not)|"
    r"no need (for|to)|there'?s no need to|"
    r"you (should|must) (always|never|not|use)|you shouldn'?t|no[,.!]? (use|don'?t|not|that)|"
    r"no[,.!] |nope|wrong|that'?s (wrong|not (it|right|what))|not like that|"
    r"leave (it|the|them|\w+) (alone|as is|as-is)|"
    r"verwende (nie|immer|kein)|benutze (nie|immer|kein)|bitte (nicht|kein|immer|nie)|nicht |immer |"
    r"n'utilise (pas|jamais)|ne (mets|fais|touche|modifie|change|utilise) (pas|jamais)|toujours |jamais |"
    r"no (uses|utilices|hagas|toques|cambies|pongas|modifiques)|nunca |siempre |"
    r"não (use|usa|faça|mexa|altere|mude)|nunca |sempre |"
    r"не (используй|трогай|делай|меняй|добавляй|надо|нужно)|никогда |всегда |"
    r"常に|必ず|絶対に|いつも|決して|"
    r"不要|别|永远不要|始终|总是|一律)",
    re.IGNORECASE,
)
_DIRECTIVE_ANYWHERE = re.compile(
    r"(しないで|使わないで|ないでください|しないでください|使ってください.*代わり)",
)
_NOT_A_DIRECTIVE = re.compile(
    r"^(don'?t (forget|worry about whether)|never mind|nevermind|no (idea|clue|worries|problem)|"
    r"always (fails|failing|crashes|returns|happens)|never (works|worked|returns|finishes))",
    re.IGNORECASE,
)
_POLITE = re.compile(
    r"^(can|could|would|will) (you|u) (please |mind )?(use|using|switch|switching|stop|change|"
    r"changing|avoid|keep|make|go|going|try|write|writing|put|move|moving)\b"
    r".*\b(instead|rather|from now on|always|never|anymore|any more)\b",
    re.IGNORECASE,
)
_FILLER = re.compile(
    r"^(ok(ay)?|also|and|but|so|hmm+|hey|actually|btw|one more thing|ah|oh|right|"
    r"also,|alright|great|thanks|thank you|cool|nice|please|pls|ja|oui|sí|si|да|ну|えっと)[,.!:;\s]+",
    re.IGNORECASE,
)
_QUESTION_START = re.compile(
    r"^(why|what|how|where|when|which|who|whose|is|are|was|were|do|does|did|should|shall|"
    r"can|could|would|will|have|has|warum|wieso|wie|was|wo|pourquoi|comment|est-ce|qu'est|"
    r"por ?qué|cómo|qué|dónde|por que|como|o que|почему|как|что|где|зачем)\b",
    re.IGNORECASE,
)
_ROLE = re.compile(
    r"^(you are|you're|act as|pretend (to be|you are)|behave like|as an? (senior|expert|experienced)|"
    r"tu es|agis comme|eres|actúa como|você é|aja como|ты\s|ведите себя как|あなたは|你是|作为一个?)",
    re.IGNORECASE,
)
_GOAL = re.compile(
    r"^(/goal\s+|goal:\s*|objective:\s*|the goal is\s+|our goal is\s+|my goal is\s+|"
    r"we(?: are|'re) trying to\s+|ziel:\s*|objectif\s*:\s*|objetivo:\s*|目标[:：]\s*)",
    re.IGNORECASE,
)
_CONSTRAINT = re.compile(
    r"\b(must (not |never )?(run|work|support|be compatible|stay|remain)|has to (run|work|support)|"
    r"needs? to (run|work|support|be compatible)|can(no|')t (use|add|install|upgrade|depend)|"
    r"not allowed to|without (adding|any) (new )?(dependenc|librar)|no new dependenc|"
    r"(is|are) (stuck|pinned) (on|to)|only (runs|works) on|(is|are) not supported)",
    re.IGNORECASE,
)
_REJECTED = re.compile(
    r"\b(revert (that|this|it|the last)|undo (that|this|it|the last)|roll (it|that) back|"
    r"that (didn'?t|did not|doesn'?t|does not) work|this approach (is|was) (wrong|too)|"
    r"scrap (that|this)|throw (that|it) away|drop (that|this) approach|that'?s a dead end)\b",
    re.IGNORECASE,
)
_BLOCKER = re.compile(
    r"(Traceback \(most recent call last\)|^\s*\w*(Error|Exception)[:\s]|^\s+at \S+ \(\S+:\d+:\d+\)|"
    r"\bFAILED\b|^error(\[\w+\])?:|panic:)",
    re.MULTILINE,
)
_RESOLVED = re.compile(
    r"(✓|✔|✅|☑|🎉|^(fixed|resolved|solved)[:!. ]|\b(works now|it works|that worked|"
    r"that fixed it|tests? (pass|passes|are passing) now)\b)",
    re.IGNORECASE,
)
_ISSUE_REF = re.compile(r"(?<![\w&])#(\d{1,6})\b")
_SPLIT = re.compile(
    r"(?<=[.!;])\s+|(?<=[。！；])\s*|\n+|(?<=[,，、])\s+(?=(?:but|and|also|then|so|aber|mais|pero|но|但)\b)",
    re.IGNORECASE,
)
_INTENT_VERBS = (
    ("fix", ("fix", "debug", "repair", "resolve", "correct", "patch")),
    ("implement", ("add", "implement", "create", "write", "build", "make", "support", "introduce", "generate")),
    ("refactor", ("refactor", "clean", "rename", "move", "extract", "simplify", "split", "reorganize")),
    ("review", ("review", "explain", "summarize", "describe", "check", "audit", "analyse", "analyze")),
    ("test", ("test", "run")),
)  # fmt: skip


def is_synthetic(prompt: str) -> bool:
    """Host-injected text that arrives as a prompt (notifications, reminders)."""
    return prompt.lstrip().startswith(SYNTHETIC_PREFIXES)


def prose_of(prompt: str) -> str:
    """The prompt without fenced code, pasted log/stack lines and quoted lines."""
    kept, fenced = [], False
    for line in prompt.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced or not stripped or _looks_pasted(line):
            continue
        kept.append(stripped)
    return "\n".join(kept)


def _looks_pasted(line: str) -> bool:
    stripped = line.strip()
    if line[:1] in (" ", "\t") and len(line) - len(line.lstrip()) >= 2:
        return True  # indented: code, a stack frame, a log continuation
    if stripped.startswith((">", "$ ", "at ", 'File "', "Traceback", "E   ", "npm ERR!", "│", "|")):
        return True
    head = stripped[:24]
    if sum(c.isdigit() for c in head) >= 8 and any(c in head for c in ":-/"):
        return True  # a timestamped log line
    if (
        stripped.startswith(("ERROR", "WARN", "INFO", "DEBUG", "FAILED", "PASSED", "["))
        and ":" in stripped
    ):
        return True
    symbols = sum(not (c.isalnum() or c.isspace()) for c in stripped)
    return len(stripped) > 20 and symbols / len(stripped) > 0.25


def clauses(prose: str) -> list[str]:
    return [c.strip() for c in _SPLIT.split(prose) if c and c.strip()]


def _strip_filler(clause: str) -> str:
    previous = None
    while previous != clause:
        previous, clause = clause, _FILLER.sub("", clause, count=1).strip()
    return clause


def is_question(clause: str) -> bool:
    text = clause.strip()
    if not text:
        return False
    if text[-1] in QUESTION_MARKS or text[0] in "¿" or text.endswith(("か", "吗", "嗎", "呢")):
        return True
    return bool(_QUESTION_START.match(_strip_filler(text))) and not _POLITE.match(text)


def decision_clauses(prompt: str) -> list[str]:
    """The clauses of `prompt` that correct the agent or state a standing preference."""
    found = []
    for clause in clauses(prose_of(prompt)):
        core = _strip_filler(clause)
        if len(core) < 4 or _NOT_A_DIRECTIVE.match(core):
            continue
        if _POLITE.match(core):
            found.append(clause)
            continue
        if clause.rstrip()[-1:] in QUESTION_MARKS or clause.lstrip()[:1] == "¿":
            continue
        if _DIRECTIVE_START.match(core) or _DIRECTIVE_ANYWHERE.search(core):
            found.append(clause)
        elif is_question(clause):
            continue
        elif (marker := _STANDING.search(core)) and _imperative_context(core, marker.group(0)):
            found.append(clause)
    return found


def _imperative_context(core: str, marker: str) -> bool:
    """A standing-preference word said as an instruction, not in a bug description.

    "returns None instead of raising" describes; "use a dict instead" and
    "from now on run ruff" instruct.
    """
    lower = core.lower()
    if re.search(r"\b(from now on|going forward|from here on|by default|as a rule|no more|next time|"
                 r"i('d| would) rather|i prefer|we prefer|stop \w+ing|don'?t ever)\b", lower):  # fmt: skip
        return True
    if not marker.isascii() or marker.lower() in FOREIGN_ASCII_MARKERS:
        return True  # other languages: the markers themselves are instruction words
    first = lower.split(None, 1)[0] if lower.split() else ""
    return first in IMPERATIVE_VERBS or lower.startswith(
        ("let's", "lets ", "we should", "you should", "i want", "i'd like")
    )


FOREIGN_ASCII_MARKERS = frozenset(
    ("ab jetzt", "von nun an", "stattdessen", "statt", "lieber", "niemals", "a partir de ahora",
     "de ahora en adelante", "en lugar de", "en vez de", "prefiero", "a partir de agora",
     "daqui pra frente", "em vez de", "prefiro")
)  # fmt: skip
IMPERATIVE_VERBS = frozenset(
    ("use", "try", "switch", "go", "make", "write", "call", "put", "keep", "move", "rename",
     "return", "raise", "log", "store", "prefer", "pick", "choose", "do", "pass", "add", "remove",
     "replace", "change", "format", "name", "import", "run", "build", "test", "wrap", "set")
)  # fmt: skip


def intent_of(core: str) -> str:
    if is_question(core):
        return "investigate"
    first = core.lower().split(None, 1)[0].strip(",.:!") if core.split() else ""
    for intent, verbs in _INTENT_VERBS:
        if first in verbs:
            return intent
    return ""


def prompt_events(prompt: str) -> list[Captured]:
    """Everything a user prompt tells us; [] for host-injected pseudo-prompts."""
    text = prompt.strip()
    if not text or is_synthetic(text):
        return []
    events = [Captured("prompt", "user_prompt", CRITICAL, clip(text, 1_200))]
    prose = prose_of(text)
    first_clause = _strip_filler((clauses(prose) or [""])[0])
    decisions = decision_clauses(text)
    for clause in decisions[:3]:
        events.append(Captured("decision", "decision", CRITICAL, one_line(clause, 200)))
    goal = _GOAL.match(prose)
    if goal:
        events.append(Captured("goal", "goal", CRITICAL, one_line(prose[goal.end() :], 200)))
    if _ROLE.match(first_clause) and not is_question(first_clause):
        events.append(Captured("role", "role", HIGH, one_line(first_clause, 200)))
    if not decisions and _CONSTRAINT.search(prose):
        events.append(Captured("constraint", "constraint", HIGH, one_line(prose, 200)))
    if _REJECTED.search(prose):
        events.append(Captured("rejected", "rejected", HIGH, one_line(prose, 200)))
    if _BLOCKER.search(text) and not _RESOLVED.search(prose):
        hits = [ln.strip() for ln in text.splitlines() if _BLOCKER.search(ln)]
        line = hits[-1] if hits else ""  # a traceback's last line names the exception
        events.append(Captured("blocker", "blocker", HIGH, one_line(line, 200)))
    elif _RESOLVED.search(prose):
        events.append(Captured("blocker", "blocker_resolved", HIGH, one_line(prose, 120)))
    intent = intent_of(first_clause)
    if intent:
        events.append(Captured("intent", "intent", LOW, intent))
    if len(text) > DATA_PROMPT_CHARS:
        events.append(
            Captured("data", "data", LOW, f"{len(text)} chars pasted: {one_line(text, 150)}")
        )
    if text.startswith("/plan"):
        events.append(Captured("plan", "plan_enter", NORMAL, one_line(text, 200)))
    for ref in _external_refs(text):
        events.append(Captured("external-ref", "external_ref", LOW, ref))
    return events


def _external_refs(text: str) -> list[str]:
    from ctxmode.session.extract import urls_in

    refs = urls_in(text, 5)
    refs.extend(f"#{m.group(1)}" for m in _ISSUE_REF.finditer(prose_of(text)))
    return refs[:8]
