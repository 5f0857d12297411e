"""Help that reads like ruff's or httpie's: command summaries never cut, options in named
groups, examples in every command's help, and a hint when a global option (-v, -q) comes
after the command name.

Standard library and click only: ``degen --help`` loads no numpy.
"""

from __future__ import annotations

import re

import click

# The options of the group itself, which click only accepts before the command name.
GLOBAL_OPTIONS = ("-v", "--verbose", "-q", "--quiet")

THRESHOLDS = "Detection thresholds"


class Command(click.Command):
    """A command whose options are shown in named groups, followed by examples.

    Args:
        groups: (title, option names) in the order shown; the detection thresholds
            (``common.threshold_options``) have a group of their own at the end, and any
            option not named lands in "Other options".
        examples: (command line, what it does) pairs, shown under "Examples".
    """

    def __init__(self, *args, groups: tuple[tuple[str, tuple[str, ...]], ...] = (),
                 examples: tuple[tuple[str, str], ...] = (), **kwargs):
        super().__init__(*args, **kwargs)
        self.groups, self.examples = groups, examples

    def format_options(self, ctx, formatter) -> None:
        from .common import THRESHOLD_NAMES
        titles = [title for title, _ in self.groups]
        where = {name: title for title, names in self.groups for name in names}
        where.update({name: THRESHOLDS for name in THRESHOLD_NAMES if name not in where})
        sections: dict[str, list] = {title: [] for title in (*titles, THRESHOLDS, "Other options")}
        for param in self.get_params(ctx):
            if not isinstance(param, click.Option):  # arguments are in the usage line
                continue
            record = param.get_help_record(ctx)
            if record is not None:
                sections[where.get(param.name, "Other options")].append(record)
        for title, records in sections.items():
            if records:
                with formatter.section(title):
                    formatter.write_dl(records)

    def format_epilog(self, ctx, formatter) -> None:
        super().format_epilog(ctx, formatter)
        write_examples(formatter, self.examples)

    def parse_args(self, ctx, args):
        try:
            return super().parse_args(ctx, args)
        except click.NoSuchOption as exc:
            if exc.option_name in GLOBAL_OPTIONS:
                raise click.UsageError(
                    f"No such option {exc.option_name!r} for '{ctx.info_name}': {exc.option_name} is an option of "
                    f"degen itself and goes before the command: degen {exc.option_name} {ctx.info_name} ...",
                    ctx) from None
            raise


def write_examples(formatter, examples) -> None:
    """Each example as its command line with what it does below it, never re-wrapped."""
    if not examples:
        return
    with formatter.section("Examples"):
        for number, (line, what) in enumerate(examples):
            if number:
                formatter.write("\n")
            formatter.write(f"{'':{formatter.current_indent}}{line}\n")
            with formatter.indentation():
                formatter.write_text(what)


class Group(click.Group):
    """``degen --help``: each command's summary in full (wrapped, never cut with "..."),
    then examples."""

    examples: tuple[tuple[str, str], ...] = ()

    def format_commands(self, ctx, formatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.short_help or first_sentence(command.help or "")))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def format_epilog(self, ctx, formatter) -> None:
        super().format_epilog(ctx, formatter)
        write_examples(formatter, self.examples)


def first_sentence(text: str) -> str:
    """The help text's first sentence, whole."""
    text = " ".join(text.split())
    found = re.search(r"(?<=[.!?])\s", text)
    return text[:found.start()] if found else text


# Units people write after a memory size; a card's "24GB" is its GiB (CUDA reports the same number).
_SIZE = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*(gib|gb|g)?\s*", re.IGNORECASE)


class GiB(click.ParamType):
    """GPU memory in GiB: ``24``, ``24GB``, ``24GiB`` or ``24G`` (a card sold as "24 GB" has
    24 GiB); other units are refused with the form to use."""

    name = "gib"

    def __init__(self, maximum: float):
        self.maximum = maximum

    def convert(self, value, param, ctx):
        if isinstance(value, (int, float)):
            number = float(value)
        else:
            found = _SIZE.fullmatch(str(value))
            if found is None:
                self.fail(f"{value!r} is not a GPU memory size: give GiB as a number, e.g. 24 or 24GB", param, ctx)
            number = float(found.group(1))
        if not 0 < number <= self.maximum:
            self.fail(f"{value!r} is outside 0 < GiB <= {self.maximum:g}", param, ctx)
        return number
