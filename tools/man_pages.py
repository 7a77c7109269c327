#!/usr/bin/env python3
"""The manual pages and the bash completion of cgmem, from its own --help.

    man_pages.py CGMEM OUT_DIR

Writes OUT_DIR/man1/cgmem.1.gz (the commands) and OUT_DIR/man1/cgmem-COMMAND.1.gz
for each command `cgmem --help` lists (its description, usage and options as
`cgmem COMMAND --help` prints them), and OUT_DIR/completion/cgmem, a bash
completion of the commands and each one's options. The text is the help's,
so the pages cannot drift from the binary they ship with.
"""
import gzip
import os
import re
import subprocess
import sys


HELP_COLUMN = 30  # CLI11's default column width


def run_help(cgmem, *args):
    out = subprocess.run([cgmem, *args, "--help"], capture_output=True, text=True, timeout=30)
    return out.stdout or out.stderr  # the help is on stdout; a sanitizer's report on stderr stays out


def commands(cgmem):
    """(name, summary) of each command in `cgmem --help`."""
    text = run_help(cgmem)
    found, listing = [], False
    for line in text.splitlines():
        if line.strip() == "commands:":
            listing = True
            continue
        m = re.match(r"^  ([a-z][a-z-]*)\s{2,}(.*)$", line)
        if listing and m:
            found.append((m.group(1), m.group(2).strip()))
    return text, found


def roff(text):
    """Text safe in a roff line: backslashes and leading dots or quotes escaped."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return re.sub(r"^([.'])", r"\\&\1", text)


def parse_help(text):
    """(description, usage, [(flags, help)]) of one command's CLI11 help."""
    description, usage, options, current = [], "", [], None
    part = "description"
    for line in text.splitlines():
        if line.startswith("Usage:"):
            usage, part = line[len("Usage:"):].strip(), "usage"
            continue
        if line.strip() in ("Options:", "Positionals:", "Subcommands:"):
            part = "options"
            continue
        if part == "description":
            description.append(line)
        elif part == "options" and line.strip():
            if line.startswith("    ") and current is not None:
                current[1].append(line.strip())
                continue
            # CLI11 pads an option to 30 columns and starts its help there,
            # or on the next line when the option is longer.
            flags, text = line[:HELP_COLUMN].strip(), line[HELP_COLUMN:].strip()
            if len(line) > HELP_COLUMN and line[HELP_COLUMN - 1] != " ":
                flags, text = line.strip(), ""
            current = (flags, [text] if text else [])
            options.append(current)
    return "\n".join(description).strip(), usage, [(f, " ".join(h)) for f, h in options]


def page(name, summary, description, usage, options, see_also):
    out = [f'.TH {name.upper()} 1 "" "cgmem" "cgmem manual"',
           ".SH NAME", f"{roff(name)} \\- {roff(summary)}",
           ".SH SYNOPSIS", f".B {roff(usage)}" if usage else f".B {roff(name)}",
           ".SH DESCRIPTION"]
    for para in re.split(r"\n\s*\n", description):
        if para.strip():
            out += [".PP", roff(" ".join(l.strip() for l in para.splitlines()))]
    if options:
        out.append(".SH OPTIONS")
        for flags, text in options:
            out += [".TP", f".B {roff(flags)}", roff(text) if text else ""]
    out += [".SH SEE ALSO", ", ".join(f"{roff(s)}(1)" for s in see_also),
            ".PP", "The documentation in docs/ of the cgmem sources: what each command does and why, "
            "with measured results."]
    return "\n".join(out) + "\n"


def write_page(path, text):
    """A gzipped page with no name or time in its header: the same bytes from the same help."""
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as f:
        f.write(text.encode())


def flags_of(options):
    words = []
    for flags, _ in options:
        for word in re.findall(r"(?:^|[ ,])(--?[A-Za-z][\w-]*)", flags):
            if word not in words:
                words.append(word)
    return words


def main():
    cgmem, out_dir = sys.argv[1], sys.argv[2]
    man1 = os.path.join(out_dir, "man1")
    os.makedirs(man1, exist_ok=True)
    os.makedirs(os.path.join(out_dir, "completion"), exist_ok=True)
    top, cmds = commands(cgmem)
    if not cmds:
        sys.exit(f"man_pages.py: `{cgmem} --help` lists no commands")
    names = [f"cgmem-{c}" for c, _ in cmds]
    summary = top.splitlines()[0].split(": ", 1)[-1]
    overview = [f'.TH CGMEM 1 "" "cgmem" "cgmem manual"', ".SH NAME", f"cgmem \\- {roff(summary)}",
                ".SH SYNOPSIS", ".B cgmem", ".I COMMAND", "[OPTIONS]", ".SH COMMANDS"]
    for c, s in cmds:
        overview += [".TP", f".B {roff(c)}", f"{roff(s)} (cgmem\\-{roff(c)}(1))"]
    overview += [".SH SEE ALSO", ", ".join(f"{roff(n)}(1)" for n in names)]
    write_page(os.path.join(man1, "cgmem.1.gz"), "\n".join(overview) + "\n")
    completion = {}
    for c, s in cmds:
        description, usage, options = parse_help(run_help(cgmem, c))
        write_page(os.path.join(man1, f"cgmem-{c}.1.gz"), page(f"cgmem-{c}", s, description, usage, options, ["cgmem"]))
        completion[c] = flags_of(options)
    lines = ["# bash completion for cgmem, written from its --help by tools/man_pages.py",
             "_cgmem() {",
             '  local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]}',
             "  if ((COMP_CWORD == 1)); then",
             f'    COMPREPLY=($(compgen -W "{" ".join(c for c, _ in cmds)} --help" -- "$cur"))',
             "    return",
             "  fi",
             '  case $cmd in']
    for c, words in completion.items():
        lines.append(f'    {c}) [[ $cur == -* ]] && COMPREPLY=($(compgen -W "{" ".join(words)}" -- "$cur")) ;;')
    lines += ["  esac",
              '  [[ ${#COMPREPLY[@]} -eq 0 && $cur != -* ]] && COMPREPLY=($(compgen -f -- "$cur"))',
              "}",
              "complete -F _cgmem cgmem"]
    with open(os.path.join(out_dir, "completion", "cgmem"), "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
