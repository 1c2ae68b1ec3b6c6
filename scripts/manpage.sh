#!/usr/bin/env bash
# Writes a man page from man/NAME.SECTION.in and the programs' own --help text, so the
# page says what --help says (Makefile: `make man`, `make deb`).
#
# Usage: scripts/manpage.sh TEMPLATE BINDIR VERSION DATE > PAGE
#
# In TEMPLATE: @VERSION@ and @DATE@ are replaced; a line "@HELP@" becomes the --help
# text of the page's program (BINDIR/NAME), verbatim in a no-fill block; a line
# "@VERBS@" (carplayctl) becomes one subsection per verb of `NAME --help` with that
# verb's `NAME VERB --help`.
set -euo pipefail
template="$1" bindir="$2" version="$3" date="$4"
name="$(basename "$template")"; name="${name%%.*}"
program="$bindir/$name"
[ -x "$program" ] || { echo "manpage.sh: $program missing" >&2; exit 1; }

# Plain text as roff: backslashes, minus signs, control characters at line starts, and
# non-ASCII characters as groff's \[uXXXX] (the page stays ASCII: groff without preconv).
roff_text() {
    sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^\\([.']\\)/\\\\\\&\\1/" |
        perl -CS -pe 's/([^\x00-\x7f])/sprintf("\\[u%04X]", ord $1)/ge'
}
verbatim() {  # verbatim COMMAND...: its output as an indented no-fill block
    echo ".RS 4"; echo ".nf"
    "$@" | roff_text
    echo ".fi"; echo ".RE"
}
help_of() { "$program" "$@" --help; }

while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
        @HELP@) verbatim help_of ;;
        @VERBS@)
            # The verb list of the top-level --help: "  NAME  summary" lines after "verbs:".
            for verb in $(help_of | sed -n '/^verbs:/,/^$/s/^  \([a-z][a-z-]*\)  .*/\1/p'); do
                echo ".SS $verb"
                verbatim help_of "$verb"
            done ;;
        .TH\ *) line="${line//@VERSION@/$version}"; printf '%s\n' "${line//@DATE@/$date}"
            # Marks of the help texts that not every groff font has (the dash's refusal mark).
            printf '%s\n' '.fchar \[u2717] x' '.fchar \[u2713] v' ;;
        *) line="${line//@VERSION@/$version}"; printf '%s\n' "${line//@DATE@/$date}" ;;
    esac
done < "$template"
