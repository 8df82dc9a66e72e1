"""One generated section of a Markdown file (bench/RESULTS.md): the text between a begin and an
end marker is replaced, or, when the markers are not there yet, appended under a heading. Used by
the bench scripts that write their own section (pool_scale.py, pool_precision.py, pool_bucb.py,
space_stream.py)."""


def command_line(r, cpu_note):
    """The "Command: … (host, threads, load average …)" line of a run record `r` (keys command,
    host, threads, load_before, load_after); `cpu_note` says how its CPU seconds count."""
    return (f"Command: `{r['command']}` ({r['host']}, {r['threads']} threads, load average "
            f"{r['load_before']:.1f} before the run and {r['load_after']:.1f} after; a shared "
            f"machine: wall times are upper bounds{cpu_note}).")


def write_section(path, text, begin, end, title):
    """Replaces begin … end in `path` by `text` (which holds both markers), or appends
    "## title" and `text` when `begin` is absent."""
    with open(path) as f:
        old = f.read()
    if begin in old:
        head, rest = old.split(begin, 1)
        new = head + text + rest.split(end, 1)[1]
    else:
        new = old.rstrip("\n") + f"\n\n## {title}\n\n" + text + "\n"
    with open(path, "w") as f:
        f.write(new)
