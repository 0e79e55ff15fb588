"""A command line read for what it means, so a rule matches every spelling of one action.

`meaning(("rm", "--force", "-R", "x"))` and `meaning(("rm", "-rf", "x"))` are equal: the
options of a program users write rules for (rm, chmod, chown, curl, wget, git, docker,
kubectl, npm/pnpm/yarn, pip, twine, uv, poetry) are split out of combined groups, their long
forms spelled as the short one, their values attached (`-XPOST`, `-X POST`, `--request=POST`
are one option), and their order dropped; what is left are the positional words (the
subcommand first), in order. git's and docker's global options (`git -C d --no-pager push`)
are told apart from the subcommand's, and `python -m pip` and `pip3` are pip.

Standard library only, no `re`: the permission rules load it when a rule names one of these
programs.
"""

from __future__ import annotations

from ctxmode.policy.shell import basename

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable


class Grammar:
    """How one program (or one level of it) spells its options.

    `aliases`: another spelling -> the canonical one (`--force` -> `-f`). `values`: the
    canonical options that take a value. `letters`: the short letters that are options at
    all (None: any); a `-word` with another letter is a positional (`chmod -rwx f`).
    `words`: multi-letter single-dash options (`wget -nv`). `abbreviated`: the program takes
    an unambiguous prefix of a long option for it (`rm --rec --forc`: GNU getopt, git).
    """

    __slots__ = ("abbreviated", "aliases", "letters", "values", "words")

    def __init__(
        self,
        aliases: dict[str, str] | None = None,
        values: str = "",
        letters: str | None = None,
        words: str = "",
        abbreviated: bool = False,
    ) -> None:
        self.aliases = aliases or {}
        self.values = frozenset(values.split())
        self.letters = None if letters is None else frozenset(letters)
        self.words = frozenset(words.split())
        self.abbreviated = abbreviated

    def canonical(self, name: str) -> str:
        found = self.aliases.get(name)
        if found is not None or not self.abbreviated or not name.startswith("--"):
            return found or name
        longer = {self.aliases[long] for long in self.aliases if long.startswith(name)}
        longer |= {value for value in self.values if value.startswith(name)}
        return longer.pop() if len(longer) == 1 else name


def _long(pairs: str) -> dict[str, str]:
    """`"force:f recursive:r"` -> {"--force": "-f", "--recursive": "-r"}."""
    out: dict[str, str] = {}
    for pair in pairs.split():
        long, _, short = pair.partition(":")
        out["--" + long] = short if short.startswith("-") else "-" + short
    return out


_RM = Grammar(
    {**_long("force:f recursive:r dir:d verbose:v"), "-R": "-r"},
    letters="rRfidvI",
    abbreviated=True,
)
_CHMOD = Grammar(
    _long("recursive:R changes:c silent:f quiet:f verbose:v"),
    "--reference",
    letters="Rcfv",
    abbreviated=True,
)
_CHOWN = Grammar(
    _long("recursive:R changes:c silent:f quiet:f verbose:v no-dereference:h"),
    "--reference --from",
    letters="RcfvhHLP",
    abbreviated=True,
)
_CURL = Grammar(
    _long(
        "request:X header:H data:d output:o remote-name:O insecure:k silent:s show-error:S"
        " location:L fail:f user:u include:i head:I verbose:v upload-file:T form:F cookie:b"
        " cookie-jar:c proxy:x user-agent:A referer:e continue-at:C max-time:m globoff:g"
        " get:G netrc:n write-out:w range:r cert:E quote:Q dump-header:D config:K"
        " proxy-user:U time-cond:z data-ascii:d"
    ),
    "-o -X -H -d -D -u -A -e -F -T -w -b -c -K -m -r -x -y -Y -z -E -C -P -Q -t -U"
    " --data-raw --data-binary --data-urlencode --url --json --connect-timeout --retry"
    " --resolve --cacert --key --oauth2-bearer --output-dir --proto --max-filesize",
)
_WGET = Grammar(
    _long(
        "output-document:O quiet:q recursive:r mirror:m continue:c timestamping:N"
        " directory-prefix:P input-file:i level:l tries:t timeout:T wait:w execute:e"
        " user-agent:U page-requisites:p convert-links:k span-hosts:H background:b"
        " output-file:o append-output:a base:B force-html:F verbose:v debug:d"
        " no-verbose:-nv no-clobber:-nc no-parent:-np no-directories:-nd"
        " no-host-directories:-nH"
    ),
    "-O -o -a -e -t -T -w -P -U -i -B -l -A -R -D -I -Q --header --user --password"
    " --post-data --post-file --method --body-data --load-cookies --save-cookies",
    words="-nv -nc -np -nd -nH",
    abbreviated=True,
)
_GIT_GLOBAL = Grammar(
    {**_long("paginate:p no-pager:P"), "--exec-path": "--exec-path"},
    "-C -c --git-dir --work-tree --namespace --config-env --super-prefix --list-cmds",
    abbreviated=True,
)
_GIT = Grammar(
    _long(
        "force:f delete:d all:a dry-run:n verbose:v quiet:q set-upstream:u message:m"
        " interactive:i file:F patch:p exclude:e push-option:o"
    ),
    "-m -F -o -e -C -c -X -S --repo --exec --receive-pack --upload-pack --push-option"
    " --message --file --exclude --author --date --onto --strategy --depth --branch -b -B",
    abbreviated=True,
)
_DOCKER_GLOBAL = Grammar(
    _long("host:H debug:D log-level:l config:--config context:c"),
    "-H -c -l --config --tlscacert --tlscert --tlskey",
)
_DOCKER = Grammar(
    _long("force:f all:a volumes:v filter:--filter"),
    "--filter --format --time -t --signal -s --file --build-arg --target --tag",
)
# `docker run -v` mounts a volume, `docker rm -v` removes volumes: their own grammar.
_DOCKER_RUN = Grammar(
    _long(
        "volume:v interactive:i tty:t detach:d publish:p env:e user:u workdir:w label:l"
        " hostname:h memory:m"
    ),
    "-v -p -e -u -w -l -h -m --name --network --net --entrypoint --mount --env-file"
    " --platform --add-host --cap-add --cap-drop --device --pid --ipc --security-opt"
    " --restart --log-driver --cpus --volumes-from --link --ulimit",
)
_KUBECTL = Grammar(
    _long(
        "namespace:n filename:f selector:l output:o container:c all-namespaces:A"
        " recursive:R stdin:i tty:t watch:w server:s"
    ),
    "-n -f -l -o -c -s -v --v --context --kubeconfig --cluster --user --token --as"
    " --as-group --request-timeout --cache-dir --certificate-authority --client-certificate"
    " --client-key --field-selector --grace-period --timeout --sort-by --type --image"
    " --replicas --from-literal --from-file",
)
_NPM = Grammar(
    _long("workspace:w prefix:C dry-run:--dry-run force:f global:g"),
    "-w -C --registry --otp --tag --access --userconfig --cache --loglevel --scope"
    " --auth-type --dir --filter -F --workspace",
)
_PIP = Grammar(
    _long("index-url:i requirement:r upgrade:U user:--user quiet:q verbose:v"),
    "-i -r -c -e -t --extra-index-url --trusted-host --proxy --log --cert --client-cert"
    " --cache-dir --src --python --retries --timeout --exists-action --target"
    " --constraint --editable --root --prefix",
)
_PUBLISHERS = Grammar(
    _long("repository:r username:u password:p token:t directory:C project:P"),
    "-r -u -p -t -C -P -c -i --repository-url --config-file --comment --sign-with --identity"
    " --cert --client-cert --publish-url --index --cache-dir --build",
)

_PYTHONS = frozenset({"python", "python3", "py"})
# program -> (its global options or None, the options of its subcommand or of itself).
GRAMMARS: dict[str, tuple[Grammar | None, Grammar]] = {
    "rm": (None, _RM),
    "chmod": (None, _CHMOD),
    "chown": (None, _CHOWN),
    "chgrp": (None, _CHOWN),
    "curl": (None, _CURL),
    "wget": (None, _WGET),
    "git": (_GIT_GLOBAL, _GIT),
    "docker": (_DOCKER_GLOBAL, _DOCKER),
    "podman": (_DOCKER_GLOBAL, _DOCKER),
    "kubectl": (None, _KUBECTL),
    "npm": (None, _NPM),
    "pnpm": (None, _NPM),
    "yarn": (None, _NPM),
    "pip": (None, _PIP),
    "twine": (None, _PUBLISHERS),
    "uv": (None, _PUBLISHERS),
    "poetry": (None, _PUBLISHERS),
    "hatch": (None, _PUBLISHERS),
    "flit": (None, _PUBLISHERS),
}
# (program, subcommand) -> the subcommand's grammar, where it differs from the program's.
SUBCOMMAND_GRAMMARS = {
    (program, sub): _DOCKER_RUN
    for program in ("docker", "podman")
    for sub in ("run", "create", "exec")
}
# `docker container rm` is `docker rm`, `docker image ls` is `docker images`, ...
_DOCKER_SUBCOMMANDS = {
    ("container", "ls"): "ps",
    ("container", "list"): "ps",
    ("image", "rm"): "rmi",
    ("image", "remove"): "rmi",
    ("image", "ls"): "images",
    ("image", "list"): "images",
}
_DOCKER_GROUPS = frozenset({"container", "image"})


class Meaning:
    """What a command does: `program`, `options` {(canonical name, value or "")}, and
    `positionals` (subcommand first). Global options are named with a leading `^`."""

    __slots__ = ("options", "positionals", "program")

    def __init__(
        self, program: str, options: frozenset[tuple[str, str]], positionals: tuple[str, ...]
    ) -> None:
        self.program = program
        self.options = options
        self.positionals = positionals

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Meaning) and (
            (self.program, self.options, self.positionals)
            == (other.program, other.options, other.positionals)
        )

    def __hash__(self) -> int:
        return hash((self.program, self.options, self.positionals))

    def __repr__(self) -> str:
        return f"Meaning({self.program!r}, {sorted(self.options)!r}, {self.positionals!r})"


def program_of(argv: tuple[str, ...] | list[str]) -> tuple[str, list[str]]:
    """(program, its arguments), with `python -m pip ...` read as `pip ...`."""
    if not argv:
        return "", []
    program, args = basename(argv[0]), list(argv[1:])
    base = program.rstrip("0123456789.")
    if base in _PYTHONS and len(args) >= 2 and args[0] == "-m":
        program, args = args[1], args[2:]
        base = program.rstrip("0123456789.")
    return ("pip" if base == "pip" else program), args


def meaning(argv: tuple[str, ...] | list[str]) -> Meaning | None:
    """The meaning of a command's words, or None when its program has no grammar here."""
    program, args = program_of(argv)
    grammars = GRAMMARS.get(program)
    if grammars is None:
        return None
    global_grammar, grammar = grammars
    options: set[tuple[str, str]] = set()
    if global_grammar is not None:
        at = _parse(args, global_grammar, options, prefix="^", stop_at_positional=True)
        args = args[at:]
        if program in ("docker", "podman"):
            args = _docker_subcommand(args)
        elif program == "git":
            args = _git_alias(args, options)
        if args:
            grammar = SUBCOMMAND_GRAMMARS.get((program, args[0]), grammar)
    positionals: list[str] = []
    _parse(args, grammar, options, positionals=positionals)
    return Meaning(program, frozenset(options), tuple(positionals))


def _git_alias(args: list[str], options: set[tuple[str, str]]) -> list[str]:
    """`git -c alias.p=push p` runs `git push`: the alias's words in its place (an alias
    starting with `!` is a shell command, read by the shell scanner)."""
    if not args:
        return args
    for name, value in options:
        key, _, words = value.partition("=")
        if name == "^-c" and key.lower() == "alias." + args[0] and not words.startswith("!"):
            return [*words.split(), *args[1:]]
    return args


def _docker_subcommand(args: list[str]) -> list[str]:
    if len(args) >= 2 and args[0] in _DOCKER_GROUPS:
        return [_DOCKER_SUBCOMMANDS.get((args[0], args[1]), args[1]), *args[2:]]
    return args


def _parse(
    args: list[str],
    grammar: Grammar,
    options: set[tuple[str, str]],
    *,
    prefix: str = "",
    positionals: list[str] | None = None,
    stop_at_positional: bool = False,
) -> int:
    """Read `args` into `options` and `positionals`; the index where reading stopped."""
    i = 0
    only_positionals = False
    while i < len(args):
        arg = args[i]
        if (
            only_positionals
            or arg == "-"
            or not arg.startswith("-")
            or _is_positional(arg, grammar)
        ):
            if stop_at_positional:
                return i
            if positionals is not None:
                positionals.append(arg)
            i += 1
            continue
        if arg == "--":
            only_positionals = True
            i += 1
            continue
        i = _option(args, i, grammar, options, prefix)
    return i


def _is_positional(arg: str, grammar: Grammar) -> bool:
    """A `-word` that is no option of this program (`chmod -w f`: a mode)."""
    if arg.startswith("--") or grammar.letters is None or arg in grammar.words:
        return False
    return not all(letter in grammar.letters for letter in arg[1:])


def _option(
    args: list[str], i: int, grammar: Grammar, options: set[tuple[str, str]], prefix: str
) -> int:
    """Read the option at `args[i]` (a long one or a group of short ones); the next index."""
    arg = args[i]
    if arg.startswith("--") or arg in grammar.words:
        name, equals, value = arg.partition("=")
        name = grammar.canonical(name)
        if not equals and name in grammar.values and i + 1 < len(args):
            value, i = args[i + 1], i + 1
        options.add((prefix + name, value))
        return i + 1
    body = arg[1:]
    for position, letter in enumerate(body):
        name = grammar.canonical("-" + letter)
        if name in grammar.values:
            value = body[position + 1 :]
            if not value and i + 1 < len(args):
                value, i = args[i + 1], i + 1
            options.add((prefix + name, value))
            return i + 1
        options.add((prefix + name, ""))
    return i + 1


def rule_meaning(pattern: str) -> Meaning | None:
    """The meaning of a Bash rule's pattern (quotes already removed): `git push:*` reads as
    `git push *`, a trailing `*` word standing for any further words."""
    text = pattern[:-2] + " *" if pattern.endswith(":*") else pattern
    words = text.split()
    return meaning(words) if words else None


def matches(rule: Meaning, command: Meaning, star_match: Callable[[str, str], bool]) -> bool:
    """Whether `command` does what `rule` names: the same program, every option of the rule
    (its value a `*` glob), and the positional words matching the rule's as a glob (a
    trailing ` *` also matching nothing)."""
    if rule.program != command.program:
        return False
    for name, value in rule.options:
        if not any(n == name and star_match(value, v) for n, v in command.options):
            return False
    want, have = " ".join(rule.positionals), " ".join(command.positionals)
    return (
        star_match(want, have)
        or (want.endswith(" *") and have == want[:-2])
        or (want == "*" and not have)
    )
