"""The command verbs: what ``companion COMMAND`` does beyond running the device, one
module a verb (or a concern of one), and the whole command-line grammar.

- :mod:`~companion.commands.commandline`: every command, flag and help text (argparse),
  and :mod:`~companion.commands.arguments`: each argument's check, one rule a kind;
- :mod:`~companion.commands.export`, :mod:`~companion.commands.importer`,
  :mod:`~companion.commands.replay`, :mod:`~companion.commands.backup` (``backup`` and
  ``restore``), :mod:`~companion.commands.selftest`;
- :mod:`~companion.commands.langcheck` (``lang-check``) with what only it uses: the
  screen walk (:mod:`~companion.commands.inspect`), the worst values a placeholder can
  take (:mod:`~companion.commands.worst`) and a player's gender made up by a
  translation (:mod:`~companion.commands.agreement`).

What the device itself uses at run time is never here: a verb stands on the spine and
the ground (a match written out is :mod:`companion.transcript`, JSON read as every way
in reads it :mod:`companion.jsonlines`, the device's own backups
:mod:`companion.store.keeper`). :mod:`companion.cli` runs the verbs; nothing below it
imports this package.
"""
